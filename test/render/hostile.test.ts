import { describe, expect, test } from 'vitest';
import { renderMarkdown } from '../../src/render/markdown.js';
import { fixtureContext } from './conformance-cases.js';

const ctx = fixtureContext({
  linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://x/{id}' }],
  translateEmoticons: true,
});

function timed(content: string): { html: string; ms: number } {
  const start = performance.now();
  const { html } = renderMarkdown(content, ctx);
  return { html, ms: performance.now() - start };
}

// Every case is at the 10000-character message limit or beyond. The time bound
// is loose (machines are shared); it catches super-linear blow-ups, which take
// seconds to minutes on these inputs.
const HOSTILE: Array<[string, string]> = [
  ['10k nested >', '>'.repeat(10_000)],
  ['10k nested "> "', '> '.repeat(5_000)],
  ['10k [', '['.repeat(10_000)],
  ['balanced brackets', '['.repeat(5_000) + ']'.repeat(5_000)],
  ['"[](" repeated', '[]('.repeat(3_400)],
  ['10k (', '('.repeat(10_000)],
  ['10k *', '*'.repeat(10_000)],
  ['"*a" repeated', '*a'.repeat(5_000)],
  ['10k backticks', '`'.repeat(10_000)],
  ['nested ordered lists', '1. '.repeat(3_300) + 'x'],
  ['nested bullets', '- '.repeat(5_000) + 'x'],
  ['nested quote fences', '```quote\n'.repeat(1_100)],
  ['nested spoiler fences', '```spoiler\n'.repeat(900)],
  ['10k <', '<'.repeat(10_000)],
  ['10k @', '@'.repeat(10_000)],
  ['10k $', '$'.repeat(10_000)],
  ['10k :', ':'.repeat(10_000)],
  ['unclosed tag', '<div ' + 'a'.repeat(9_995)],
  ['URL with open parens', 'http://x.com/' + '('.repeat(9_000)],
  ['dotted words', 'a.'.repeat(5_000)],
  ['"|>[" repeated', '|>['.repeat(3_333)],
  ['deep TeX braces', '$$' + '{'.repeat(5_000) + 'x' + '}'.repeat(5_000) + '$$'],
  ['100k of text', 'word '.repeat(20_000)],
];

describe('hostile input', () => {
  test.each(HOSTILE)('%s renders without crashing, quickly', (_name, content) => {
    const { html, ms } = timed(content);
    expect(typeof html).toBe('string');
    expect(html).not.toMatch(/<script/i);
    expect(ms).toBeLessThan(3_000);
  });

  test('deep quote nesting is bounded and the rest stays text', () => {
    const { html } = timed('>'.repeat(10_000));
    expect(html.match(/<blockquote>/g)!.length).toBeLessThanOrEqual(40);
    expect(html).toContain('&gt;&gt;&gt;');
  });

  test('TeX that exhausts KaTeX is a tex-error, not a failed message', () => {
    const { html } = timed('ok $$' + '{'.repeat(5_000) + 'x' + '}'.repeat(5_000) + '$$');
    expect(html.startsWith('<p>ok <span class="tex-error">$${{{')).toBe(true);
  });

  test('random mixes of syntax characters', () => {
    const pieces = ['[', ']', '(', ')', '*', '**', '`', '~~', '> ', '\n', ' ', 'a', 'http://x.com/', '@**', '#**', '$$', ':)', '<', '\\', '|', '1. ', '💩', '&', '#1'];
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 15; round++) {
      let content = '';
      while (content.length < 10_000) content += pieces[Math.floor(next() * pieces.length)];
      const { ms } = timed(content);
      expect(ms).toBeLessThan(3_000);
    }
  });
});
