import { describe, expect, test } from 'vitest';
import {
  expandPlaygroundUrl,
  pythonPatternToJs,
  topicLinks,
  validateLinkifier,
  validatePlaygroundTemplate,
} from '../../src/render/linkifiers.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import type { RenderLinkifier } from '../../src/render/types.js';
import { expandUriTemplate, isValidUriTemplate, parseUriTemplate } from '../../src/render/uri-template.js';
import { fixtureContext } from './conformance-cases.js';

const ISSUES: RenderLinkifier = {
  id: 1,
  pattern: '#(?P<id>[0-9]+)',
  url_template: 'https://github.com/zulip/zulip/issues/{id}',
};

describe('validateLinkifier', () => {
  test('accepts a pattern whose named groups are the template variables', () => {
    expect(validateLinkifier(ISSUES.pattern, ISSUES.url_template)).toEqual({ ok: true });
    expect(validateLinkifier('(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>\\d+)', 'https://github.com/{org}/{repo}/pull/{id}')).toEqual({ ok: true });
    expect(validateLinkifier('JIRA-[0-9]+', 'https://jira.example.com/')).toEqual({ ok: true });
  });

  test('rejects invalid regular expressions', () => {
    expect(validateLinkifier('#(?P<id>[0-9]+', 'https://x/{id}')).toEqual({
      ok: false,
      field: 'pattern',
      msg: 'Bad regular expression: Unterminated group',
    });
    const bad = validateLinkifier('*oops', 'https://x/');
    expect(bad).toMatchObject({ ok: false, field: 'pattern' });
  });

  test('rejects invalid URL templates', () => {
    expect(validateLinkifier(ISSUES.pattern, 'https://x/{id')).toEqual({
      ok: false,
      field: 'url_template',
      msg: 'Invalid URL template.',
    });
    expect(validateLinkifier(ISSUES.pattern, 'https://x/{id}"')).toMatchObject({ ok: false, field: 'url_template' });
  });

  test('every template variable must be a named group, and the other way round', () => {
    expect(validateLinkifier(ISSUES.pattern, 'https://x/{ticket}')).toEqual({
      ok: false,
      field: 'url_template',
      msg: "Group 'ticket' in URL template is not present in linkifier pattern.",
    });
    expect(validateLinkifier('#(?P<id>[0-9]+)-(?P<rev>\\d+)', 'https://x/{id}')).toEqual({
      ok: false,
      field: 'url_template',
      msg: "Group 'rev' in linkifier pattern is not present in URL template.",
    });
  });

  test('Python syntax is translated', () => {
    expect(pythonPatternToJs('(?P<a>x)(?P=a)\\Z')).toEqual({ source: '(?<a>x)\\k<a>$', flags: '' });
    expect(pythonPatternToJs('(?i)abc\\-d{,3}')).toEqual({ source: 'abc-d{0,3}', flags: 'i' });
  });
});

describe('validatePlaygroundTemplate', () => {
  test('needs exactly the variable "code"', () => {
    expect(validatePlaygroundTemplate('https://play.rust-lang.org/?code={code}')).toEqual({ ok: true });
    expect(validatePlaygroundTemplate('https://play.example/?c={c}')).toEqual({
      ok: false,
      msg: 'Missing the required variable "code" in the URL template',
    });
    expect(validatePlaygroundTemplate('https://play.example/{lang}?c={code}')).toEqual({
      ok: false,
      msg: '"code" should be the only variable present in the URL template',
    });
    expect(validatePlaygroundTemplate('https://play.example/{code')).toEqual({ ok: false, msg: 'Invalid URL template.' });
  });

  test('expands the code with percent-encoding', () => {
    expect(expandPlaygroundUrl('https://play.example/?code={code}', 'fn main() {}')).toBe(
      'https://play.example/?code=fn%20main%28%29%20%7B%7D',
    );
  });
});

describe('RFC 6570 expansion', () => {
  const values = { var: 'value', hello: 'Hello World!', path: '/foo/bar', empty: '', x: '1024', y: '768', half: '50%' };
  test.each([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{half}', '50%25'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['{#path}', '#/foo/bar'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['{/var,x}/here', '/value/1024/here'],
    ['{var:3}', 'val'],
    ['{undefined}', ''],
  ])('%s → %s', (template, expected) => {
    expect(expandUriTemplate(parseUriTemplate(template), values)).toBe(expected);
  });

  test('validation', () => {
    expect(isValidUriTemplate('https://example.com/{a}/{+b}')).toBe(true);
    expect(isValidUriTemplate('https://example.com/{a')).toBe(false);
    expect(isValidUriTemplate('https://example.com/{}')).toBe(false);
    expect(isValidUriTemplate('https://example.com/{a b}')).toBe(false);
    expect(isValidUriTemplate('https://example.com/ x')).toBe(false);
    expect(isValidUriTemplate('https://example.com/%zz')).toBe(false);
  });

  test('Unicode values are UTF-8 percent-encoded', () => {
    expect(expandUriTemplate(parseUriTemplate('/t/{x}'), { x: 'café' })).toBe('/t/caf%C3%A9');
  });
});

describe('linkifiers in messages', () => {
  const render = (content: string, linkifiers: RenderLinkifier[]) =>
    renderMarkdown(content, fixtureContext({ linkifiers })).html;

  test('matches become links; not inside code, links or words', () => {
    expect(render('fixes #123, see `#45` and [#6](https://x.com) or a#7', [ISSUES])).toBe(
      '<p>fixes <a href="https://github.com/zulip/zulip/issues/123">#123</a>, see <code>#45</code> and ' +
        '<a href="https://x.com">#6</a> or a#7</p>',
    );
  });

  test('earlier linkifiers win over later overlapping ones', () => {
    const first: RenderLinkifier = { id: 1, pattern: 'ABC-(?P<n>\\d+)', url_template: 'https://first/{n}' };
    const second: RenderLinkifier = { id: 2, pattern: '[A-Z]+-(?P<n>\\d+)', url_template: 'https://second/{n}' };
    expect(render('ABC-1 XYZ-2', [first, second])).toBe(
      '<p><a href="https://first/1">ABC-1</a> <a href="https://second/2">XYZ-2</a></p>',
    );
    expect(render('ABC-1 XYZ-2', [second, first])).toBe(
      '<p><a href="https://second/1">ABC-1</a> <a href="https://second/2">XYZ-2</a></p>',
    );
  });

  test('linkified text is not linkified again, and bare URLs come first', () => {
    const alsoDigits: RenderLinkifier = { id: 2, pattern: '(?P<n>\\d+)', url_template: 'https://n/{n}' };
    expect(render('#12 https://x.com/#34', [ISSUES, alsoDigits])).toBe(
      '<p><a href="https://github.com/zulip/zulip/issues/12">#12</a> <a href="https://x.com/#34">https://x.com/#34</a></p>',
    );
  });

  test('reserved expansion keeps URL characters', () => {
    const path: RenderLinkifier = { id: 3, pattern: 'wiki:(?P<page>[\\w/]+)', url_template: 'https://wiki.example/{+page}' };
    expect(render('see wiki:Team/Onboarding', [path])).toBe(
      '<p>see <a href="https://wiki.example/Team/Onboarding">wiki:Team/Onboarding</a></p>',
    );
  });

  test('invalid stored linkifiers are ignored', () => {
    expect(render('#1', [{ id: 9, pattern: '(', url_template: 'https://x/' }, ISSUES])).toBe(
      '<p><a href="https://github.com/zulip/zulip/issues/1">#1</a></p>',
    );
  });
});

describe('topicLinks', () => {
  test('linkifier matches and bare URLs, in order of appearance', () => {
    expect(topicLinks('fix #123 see https://x.com/a and zulip.com', [ISSUES])).toEqual([
      { text: '#123', url: 'https://github.com/zulip/zulip/issues/123' },
      { text: 'https://x.com/a', url: 'https://x.com/a' },
      { text: 'zulip.com', url: 'https://zulip.com' },
    ]);
  });

  test('overlapping matches: earlier linkifier wins', () => {
    const wide: RenderLinkifier = { id: 2, pattern: '#(?P<id>[0-9]+)-(?P<rev>[0-9]+)', url_template: 'https://w/{id}/{rev}' };
    expect(topicLinks('#12-3', [wide, ISSUES])).toEqual([{ text: '#12-3', url: 'https://w/12/3' }]);
    expect(topicLinks('#12-3', [ISSUES, wide])).toEqual([{ text: '#12', url: 'https://github.com/zulip/zulip/issues/12' }]);
  });

  test('no links', () => {
    expect(topicLinks('just a topic', [ISSUES])).toEqual([]);
  });
});
