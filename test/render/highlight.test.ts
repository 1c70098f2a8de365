import { describe, expect, test } from 'vitest';
import { highlightMatches, highlightText } from '../../src/render/highlight.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { contextForContent, findAlertWords, scanContent } from '../../src/render/scan.js';
import { fixtureContext } from './conformance-cases.js';

describe('highlightMatches', () => {
  test('wraps whole words that start with a term, case-insensitively', () => {
    expect(highlightMatches('<p>Testing tests and a contest</p>', ['test'])).toBe(
      '<p><span class="highlight">Testing</span> <span class="highlight">tests</span> and a contest</p>',
    );
  });

  test('never inside tags or attributes', () => {
    const html = '<p><a href="https://test.example/test" title="test">a test link</a></p>';
    expect(highlightMatches(html, ['test'])).toBe(
      '<p><a href="https://test.example/test" title="test">a <span class="highlight">test</span> link</a></p>',
    );
  });

  test('leaves entities intact', () => {
    expect(highlightMatches('<p>AT&amp;T amp</p>', ['amp'])).toBe('<p>AT&amp;T <span class="highlight">amp</span></p>');
  });

  test('several terms, longest first; no terms is a no-op', () => {
    expect(highlightMatches('<p>foo foobar bar</p>', ['foo', 'bar'])).toBe(
      '<p><span class="highlight">foo</span> <span class="highlight">foobar</span> <span class="highlight">bar</span></p>',
    );
    expect(highlightMatches('<p>x</p>', [])).toBe('<p>x</p>');
    expect(highlightMatches('<p>x</p>', ['  '])).toBe('<p>x</p>');
  });

  test('terms with regex characters are literal', () => {
    expect(highlightMatches('<p>c++ and c</p>', ['c++'])).toBe('<p><span class="highlight">c++</span> and c</p>');
  });

  test('works on rendered messages', () => {
    const { html } = renderMarkdown('Deploy **today**: see https://deploy.example.com', fixtureContext());
    expect(highlightMatches(html, ['deploy'])).toBe(
      '<p><span class="highlight">Deploy</span> <strong>today</strong>: see ' +
        '<a href="https://deploy.example.com">https://<span class="highlight">deploy</span>.example.com</a></p>',
    );
  });
});

describe('highlightText', () => {
  test('escapes, then highlights', () => {
    expect(highlightText('<b>release</b> notes', ['release'])).toBe(
      '&lt;b&gt;<span class="highlight">release</span>&lt;/b&gt; notes',
    );
  });
});

describe('findAlertWords', () => {
  test('whole words, case-insensitive, punctuation allowed around', () => {
    expect(findAlertWords('The Deploy failed. Outage!', ['deploy', 'outage', 'fail'])).toEqual(['deploy', 'outage']);
    expect(findAlertWords('redeploy', ['deploy'])).toEqual([]);
    expect(findAlertWords('"deploy"', ['deploy'])).toEqual(['deploy']);
    expect(findAlertWords('multi word phrase here', ['word phrase'])).toEqual(['word phrase']);
  });
});

describe('scanContent / contextForContent', () => {
  const content = 'hi @**King Hamlet** @_**|8** @**all** @*hamletcharacters* #**Denmark>danish topic** :green_tick:';

  test('finds the names a message uses', () => {
    expect(scanContent(content)).toEqual({
      userNames: ['king hamlet'],
      userIds: [8],
      groupNames: ['hamletcharacters'],
      channelNames: ['Denmark'],
      topics: [['Denmark', 'danish topic']],
      emojiNames: ['green_tick'],
      mayHaveWildcard: true,
    });
  });

  test('a narrowed context renders the same as the full one', () => {
    const full = fixtureContext();
    const small = contextForContent(full, content);
    expect(small.users?.map((u) => u.id)).toEqual([8, 10]);
    expect(small.channels?.map((c) => c.id)).toEqual([1]);
    expect(renderMarkdown(content, small)).toEqual(renderMarkdown(content, full));
  });
});
