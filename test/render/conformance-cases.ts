// Loads Zulip's Markdown conformance cases (test/fixtures/markdown-cases.json)
// and runs them the way test/fixtures/README.md describes.

import { readFileSync } from 'node:fs';
import { renderMarkdown } from '../../src/render/markdown.js';
import type { RenderContext } from '../../src/render/types.js';

interface RegularCase {
  name: string;
  input: string;
  expected_output: string;
  marked_expected_output?: string;
  translate_emoticons?: boolean;
}

interface CaseFile {
  regular_tests: RegularCase[];
  linkify_tests: Array<[string, string, string]>;
}

export const cases: CaseFile = JSON.parse(
  readFileSync(new URL('../fixtures/markdown-cases.json', import.meta.url), 'utf8'),
) as CaseFile;

/**
 * The realm Zulip's own tests render in (zulip.testserver): a few users, groups,
 * channels and custom emoji that the cases may refer to.
 */
export function fixtureContext(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    realmUrl: 'http://zulip.testserver',
    users: [
      { id: 8, full_name: 'Iago', is_active: true },
      { id: 9, full_name: 'Cordelia, Lear\'s daughter', is_active: true },
      { id: 10, full_name: 'King Hamlet', is_active: true },
      { id: 11, full_name: 'Othello, the Moor of Venice', is_active: true },
      { id: 12, full_name: 'aaron', is_active: true },
      { id: 13, full_name: 'Polonius', is_active: false },
    ],
    userGroups: [
      { id: 20, name: 'hamletcharacters', is_system_group: false, description: 'Characters of Hamlet' },
      { id: 21, name: 'role:administrators', is_system_group: true, description: 'Administrators' },
    ],
    channels: [
      { id: 1, name: 'Denmark', topicLatestMessageIds: { 'danish topic': 42 } },
      { id: 2, name: 'Scotland' },
      { id: 3, name: 'Verona' },
    ],
    realmEmoji: [
      { id: 1, name: 'green_tick', source_url: '/user_avatars/2/emoji/images/1.png', deactivated: false },
      { id: 2, name: 'old_tick', source_url: '/user_avatars/2/emoji/images/2.png', deactivated: true },
    ],
    linkifiers: [],
    translateEmoticons: false,
    ...overrides,
  };
}

const HIGHLIGHT_BLOCK = /<div class="codehilite"[^>]*>[\s\S]*?<\/div>/g;

/** Remove Pygments' `<span class="…">` wrappers inside code blocks. */
export function normaliseHighlighting(html: string): string {
  return html.replace(HIGHLIGHT_BLOCK, (block) =>
    block.replace(/<pre><span><\/span><code>([\s\S]*?)<\/code><\/pre>/, (_m, code: string) =>
      `<pre><span></span><code>${code.replace(/<span class="[^"]*">/g, '').replace(/<\/span>/g, '')}</code></pre>`,
    ),
  );
}

export interface CaseOutcome {
  name: string;
  passed: boolean;
  expected: string;
  actual: string;
}

export function runRegularCases(): CaseOutcome[] {
  return cases.regular_tests.map((c) => {
    const ctx = fixtureContext({ translateEmoticons: c.translate_emoticons ?? false });
    const expected = normaliseHighlighting(c.marked_expected_output ?? c.expected_output);
    const actual = normaliseHighlighting(renderMarkdown(c.input, ctx).html);
    return { name: c.name, passed: actual === expected, expected, actual };
  });
}

export function linkifyExpected(template: string, url: string): string {
  if (url === '') return template;
  let href: string;
  if (url.startsWith('http')) href = url;
  else if (url.includes('@')) href = 'mailto:' + url;
  else href = 'http://' + url;
  return template.replace('%s', `<a href="${href}">${url}</a>`);
}

export function runLinkifyCases(): CaseOutcome[] {
  return cases.linkify_tests.map(([input, template, url], i) => {
    const expected = linkifyExpected(template, url);
    const actual = renderMarkdown(input, fixtureContext()).html;
    return { name: `linkify[${i}] ${input.slice(0, 40)}`, passed: actual === expected, expected, actual };
  });
}
