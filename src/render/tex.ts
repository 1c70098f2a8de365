// Math through KaTeX. A TeX error never fails the message: Zulip shows the
// source in a `tex-error` span instead.

import katex from 'katex';
import { escapeText } from './escape.js';

/** Rendered KaTeX HTML, or null when the TeX does not parse. */
export function renderTex(tex: string, displayMode: boolean): string | null {
  // KaTeX reports characters it has no font metrics for on console.warn; that
  // is not an error for us and would flood the logs.
  const warn = console.warn;
  console.warn = () => undefined;
  try {
    return katex.renderToString(tex, {
      displayMode,
      throwOnError: true,
      strict: 'ignore',
      trust: false,
      output: 'htmlAndMathml',
      // Bound macro expansion so `\def` loops end quickly.
      maxExpand: 1000,
      maxSize: 100,
    });
  } catch (err) {
    // Parse errors, and anything else KaTeX throws on pathological input
    // (nesting deep enough to exhaust the stack), mean invalid TeX.
    if (err instanceof Error) return null;
    throw err;
  } finally {
    console.warn = warn;
  }
}

/** Inline `$$…$$` math. */
export function renderInlineTex(body: string): string {
  const html = renderTex(body, false);
  return html ?? `<span class="tex-error">${escapeText('$$' + body + '$$')}</span>`;
}

/** A ```` ```math ```` block: a paragraph holding display math. */
export function renderDisplayTex(body: string): string {
  const html = renderTex(body, true);
  return `<p>${html ?? `<span class="tex-error">${escapeText(body)}</span>`}</p>`;
}
