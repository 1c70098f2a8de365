// Zulip's fenced-block preprocessor. Fences at the start of a line open code,
// quote, math or spoiler blocks, which may nest (a quote can hold code, a
// spoiler can hold a quote). Code and math become stashed HTML placeholders;
// quotes become `> ` lines; spoilers become placeholders around their Markdown.

import { formatCodeBlock } from './code.js';
import { stashHtml, type RenderState } from './context.js';
import { renderDisplayTex } from './tex.js';

const FENCE_RE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+,\-./#]*)[ ]*([^ ~`][^~`]*)?\}?)?$/;

const MAX_FENCE_NESTING = 16;

interface Handler {
  handleLine(line: string): void;
  done(): void;
}

class FencePreprocessor {
  readonly handlers: Handler[] = [];

  constructor(
    readonly state: RenderState,
    readonly defaultLanguage: string,
  ) {}

  push(handler: Handler): void {
    this.handlers.push(handler);
  }

  pop(): void {
    this.handlers.pop();
  }

  /** Open a handler if `line` is a fence, else pass the line through. */
  checkForNewFence(output: string[], line: string): void {
    // Fences nested deeper than this are left as text, which bounds the
    // quadratic growth of repeated `> ` prefixes.
    const depth = this.handlers.length + this.state.nesting;
    const m = depth > MAX_FENCE_NESTING ? null : FENCE_RE.exec(line);
    if (!m) {
      output.push(line);
      return;
    }
    const fence = m[1];
    let lang = (m[2] ?? '').toLowerCase();
    const header = m[3] ?? '';
    if (!lang && this.defaultLanguage) lang = this.defaultLanguage.toLowerCase();
    if (lang === 'quote' || lang === 'quoted') this.push(new QuoteHandler(this, output, fence));
    else if (lang === 'math') this.push(new RenderedBlockHandler(this, output, fence, renderDisplayTex, true));
    else if (lang === 'spoiler') this.push(new SpoilerHandler(this, output, fence, header));
    else this.push(new RenderedBlockHandler(this, output, fence, (body) => formatCodeBlock(body, lang), false));
  }

  run(lines: string[]): string[] {
    const output: string[] = [];
    const outer: Handler = {
      handleLine: (line) => this.checkForNewFence(output, line),
      done: () => this.pop(),
    };
    this.push(outer);
    for (const line of lines) this.handlers[this.handlers.length - 1].handleLine(line);
    while (this.handlers.length > 0) this.handlers[this.handlers.length - 1].done();
    return output;
  }
}

/** A fenced block whose lines become one stashed piece of HTML (code, math). */
class RenderedBlockHandler implements Handler {
  private readonly lines: string[] = [];
  constructor(
    private readonly pre: FencePreprocessor,
    private readonly output: string[],
    private readonly fence: string,
    private readonly render: (body: string) => string,
    private readonly keepTrailingSpace: boolean,
  ) {}
  handleLine(line: string): void {
    if (line.trimEnd() === this.fence) this.done();
    else this.lines.push(this.keepTrailingSpace ? line : line.trimEnd());
  }
  done(): void {
    this.output.push('', stashHtml(this.pre.state, this.render(this.lines.join('\n'))), '');
    this.pre.pop();
  }
}

class QuoteHandler implements Handler {
  private readonly lines: string[] = [];
  constructor(
    private readonly pre: FencePreprocessor,
    private readonly output: string[],
    private readonly fence: string,
  ) {}
  handleLine(line: string): void {
    if (line.trimEnd() === this.fence) this.done();
    else this.pre.checkForNewFence(this.lines, line);
  }
  done(): void {
    this.output.push('', ...this.lines.map((line) => '> ' + line), '');
    this.pre.pop();
  }
}

const SPOILER_OPEN = '<div class="spoiler-block"><div class="spoiler-header">';
const SPOILER_MIDDLE = '</div><div class="spoiler-content" aria-hidden="true">';
const SPOILER_CLOSE = '</div></div>';

class SpoilerHandler implements Handler {
  private readonly lines: string[] = [];
  constructor(
    private readonly pre: FencePreprocessor,
    private readonly output: string[],
    private readonly fence: string,
    private readonly header: string,
  ) {}
  handleLine(line: string): void {
    if (line.trimEnd() === this.fence) this.done();
    else this.pre.checkForNewFence(this.lines, line);
  }
  done(): void {
    const state = this.pre.state;
    const text = [
      stashHtml(state, SPOILER_OPEN, 'spoiler-open'),
      this.header,
      stashHtml(state, SPOILER_MIDDLE, 'spoiler-middle'),
      this.lines.join('\n'),
      stashHtml(state, SPOILER_CLOSE, 'spoiler-close'),
    ].join('\n\n');
    this.output.push('', ...text.split('\n'), '');
    this.pre.pop();
  }
}

/** Apply the fenced-block preprocessor to message content. */
export function preprocessFences(content: string, state: RenderState): string {
  const pre = new FencePreprocessor(state, state.index.defaultCodeBlockLanguage);
  return pre.run(content.split('\n')).join('\n');
}
