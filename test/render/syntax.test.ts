import { describe, expect, test } from 'vitest';
import { renderMarkdown } from '../../src/render/markdown.js';
import type { RenderContext } from '../../src/render/types.js';
import { fixtureContext } from './conformance-cases.js';

const ctx: RenderContext = fixtureContext();
const render = (content: string, extra: Partial<RenderContext> = {}) =>
  renderMarkdown(content, { ...ctx, ...extra });
const html = (content: string, extra: Partial<RenderContext> = {}) => render(content, extra).html;

describe('user mentions', () => {
  test('by name, case-insensitively, shown with the full name', () => {
    const r = render('hi @**king hamlet**');
    expect(r.html).toBe('<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span></p>');
    expect(r.mentionedUserIds).toEqual([10]);
  });

  test('by name and id, and by id alone', () => {
    expect(html('@**King Hamlet|10**')).toBe('<p><span class="user-mention" data-user-id="10">@King Hamlet</span></p>');
    expect(html('@**|10**')).toBe('<p><span class="user-mention" data-user-id="10">@King Hamlet</span></p>');
  });

  test('a name that does not match the id is left as text', () => {
    const r = render('@**Iago|10**');
    expect(r.html).toBe('<p>@<strong>Iago|10</strong></p>');
    expect(r.mentionedUserIds).toEqual([]);
  });

  test('unknown names are left as text', () => {
    expect(html('@**Nobody Here**')).toBe('<p>@<strong>Nobody Here</strong></p>');
  });

  test('silent mentions do not notify', () => {
    const r = render('@_**King Hamlet**');
    expect(r.html).toBe('<p><span class="user-mention silent" data-user-id="10">King Hamlet</span></p>');
    expect(r.mentionedUserIds).toEqual([]);
    expect(r.silentlyMentionedUserIds).toEqual([10]);
  });

  test('mentions inside quotes are silent', () => {
    const r = render('> @**King Hamlet** said');
    expect(r.html).toBe(
      '<blockquote>\n<p><span class="user-mention silent" data-user-id="10">King Hamlet</span> said</p>\n</blockquote>',
    );
    expect(r.mentionedUserIds).toEqual([]);
  });

  test('deactivated users are mentioned silently', () => {
    const r = render('@**Polonius**');
    expect(r.html).toBe('<p><span class="user-mention silent" data-user-id="13">Polonius</span></p>');
    expect(r.mentionedUserIds).toEqual([]);
  });

  test('a mention must follow whitespace or an opening delimiter', () => {
    expect(html('x@**King Hamlet**')).toBe('<p>x@<strong>King Hamlet</strong></p>');
    expect(html('(@**King Hamlet**)')).toContain('data-user-id="10"');
  });

  test('ambiguous names need the id form', () => {
    const dup = fixtureContext({
      users: [
        { id: 1, full_name: 'Sam', is_active: true },
        { id: 2, full_name: 'sam', is_active: true },
      ],
    });
    expect(renderMarkdown('@**Sam**', dup).mentionedUserIds).toEqual([]);
    expect(renderMarkdown('@**sam|2**', dup).mentionedUserIds).toEqual([2]);
  });
});

describe('wildcard mentions', () => {
  test.each(['all', 'everyone', 'channel', 'stream'])('@**%s** mentions the channel', (name) => {
    const r = render(`@**${name}**`);
    expect(r.html).toBe(`<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span></p>`);
    expect(r.wildcards).toEqual({ stream: true, topic: false });
  });

  test('@**topic** mentions the topic', () => {
    const r = render('@**topic**');
    expect(r.html).toBe('<p><span class="topic-mention">@topic</span></p>');
    expect(r.wildcards).toEqual({ stream: false, topic: true });
  });

  test('silent and quoted wildcards set no flags', () => {
    expect(render('@_**all**').wildcards).toEqual({ stream: false, topic: false });
    expect(render('> @**all** @**topic**').wildcards).toEqual({ stream: false, topic: false });
    expect(html('@_**all**')).toBe(
      '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>',
    );
  });
});

describe('user group mentions', () => {
  test('non-silent and silent', () => {
    const r = render('@*hamletcharacters* and @_*HamletCharacters*');
    expect(r.html).toBe(
      '<p><span class="user-group-mention" data-user-group-id="20">@hamletcharacters</span> and ' +
        '<span class="user-group-mention silent" data-user-group-id="20">hamletcharacters</span></p>',
    );
    expect(r.mentionedGroupIds).toEqual([20]);
  });

  test('system groups are silent and use their description', () => {
    const r = render('@*role:administrators*');
    expect(r.html).toBe('<p><span class="user-group-mention silent" data-user-group-id="21">Administrators</span></p>');
    expect(r.mentionedGroupIds).toEqual([]);
  });

  test('unknown groups stay text', () => {
    expect(html('@*nobody*')).toBe('<p>@<em>nobody</em></p>');
  });
});

describe('channel, topic and message links', () => {
  test('channel link', () => {
    expect(html('#**Denmark**')).toBe(
      '<p><a class="stream" data-stream-id="1" href="/#narrow/channel/1-Denmark">#Denmark</a></p>',
    );
  });

  test('topic link, with the latest message id when known', () => {
    expect(html('#**Denmark>danish topic**')).toBe(
      '<p><a class="stream-topic" data-stream-id="1" href="/#narrow/channel/1-Denmark/topic/danish.20topic/with/42">' +
        '#Denmark &gt; danish topic</a></p>',
    );
    expect(html('#**Verona>a.b c**')).toBe(
      '<p><a class="stream-topic" data-stream-id="3" href="/#narrow/channel/3-Verona/topic/a.2Eb.20c">#Verona &gt; a.b c</a></p>',
    );
  });

  test('empty topic uses the display name', () => {
    expect(html('#**Verona>**')).toBe(
      '<p><a class="stream-topic" data-stream-id="3" href="/#narrow/channel/3-Verona/topic/">#Verona &gt; <em>general chat</em></a></p>',
    );
    expect(html('#**Verona>**', { emptyTopicDisplayName: 'lobby' })).toContain('<em>lobby</em>');
  });

  test('message link', () => {
    expect(html('#**Verona>hello@99**')).toBe(
      '<p><a class="message-link" href="/#narrow/channel/3-Verona/topic/hello/near/99">#Verona &gt; hello @ 💬</a></p>',
    );
  });

  test('unknown channels stay text', () => {
    expect(html('#**Atlantis**')).toBe('<p>#<strong>Atlantis</strong></p>');
  });
});

describe('emoji', () => {
  test('Unicode emoji by Zulip name', () => {
    expect(html(':smile:')).toBe(
      '<p><span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>',
    );
    expect(html(':thumbs_up:')).toContain('emoji-1f44d');
  });

  test('realm custom emoji, but not deactivated ones', () => {
    expect(html(':green_tick:')).toBe(
      '<p><img alt=":green_tick:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="green tick"></p>',
    );
    expect(html(':old_tick:')).toBe('<p>:old_tick:</p>');
  });

  test(':zulip:', () => {
    expect(html(':zulip:')).toBe(
      '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>',
    );
  });

  test('Unicode emoji characters get their name', () => {
    expect(html('🐙')).toBe(
      '<p><span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span></p>',
    );
  });

  test('emoticons only when the sender translates them', () => {
    expect(html(':) ok')).toBe('<p>:) ok</p>');
    expect(html(':) ok', { translateEmoticons: true })).toContain('emoji-1f642');
  });

  test('no emoji inside code', () => {
    expect(html('`:smile:`')).toBe('<p><code>:smile:</code></p>');
  });
});

describe('blocks', () => {
  test('spoiler with a header', () => {
    expect(html('```spoiler Plot twist\nIt was **him**\n```')).toBe(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>Plot twist</p>\n</div>' +
        '<div class="spoiler-content" aria-hidden="true">\n<p>It was <strong>him</strong></p>\n</div></div>',
    );
  });

  test('code block languages are canonicalised', () => {
    const cases: Array<[string, string]> = [
      ['py', 'Python'],
      ['python', 'Python'],
      ['py2', 'Python 2.x'],
      ['js', 'JavaScript'],
      ['ts', 'TypeScript'],
      ['c++', 'C++'],
      ['sh', 'Bash'],
    ];
    for (const [alias, name] of cases) {
      expect(html('```' + alias + '\nx = 1\n```')).toBe(
        `<div class="codehilite" data-code-language="${name}"><pre><span></span><code>x = 1\n</code></pre></div>`,
      );
    }
    expect(html('```mylang\nx\n```')).toContain('data-code-language="mylang"');
    expect(html('```\nx\n```')).toBe('<div class="codehilite"><pre><span></span><code>x\n</code></pre></div>');
  });

  test('realm default code block language', () => {
    expect(html('```\nx\n```', { defaultCodeBlockLanguage: 'python' })).toContain('data-code-language="Python"');
  });

  test('code is escaped and not interpreted', () => {
    expect(html('```\n<b>**x**</b> "q"\n```')).toBe(
      '<div class="codehilite"><pre><span></span><code>&lt;b&gt;**x**&lt;/b&gt; &quot;q&quot;\n</code></pre></div>',
    );
  });

  test('quote by fence and by >', () => {
    expect(html('```quote\nhello\n```')).toBe('<blockquote>\n<p>hello</p>\n</blockquote>');
    expect(html('> hello\n> world')).toBe('<blockquote>\n<p>hello<br>\nworld</p>\n</blockquote>');
  });

  test('fences inside > quotes and list items still make code blocks', () => {
    expect(html('> ```\n> x\n> ```')).toBe(
      '<blockquote>\n<div class="codehilite"><pre><span></span><code>x\n</code></pre></div>\n</blockquote>',
    );
  });

  test('math inline and display, errors shown as source', () => {
    expect(html('$$x$$')).toMatch(/^<p><span class="katex">.*<\/span><\/p>$/s);
    expect(html('```math\nx^2\n```')).toMatch(/^<p><span class="katex-display"><span class="katex">/);
    expect(html('```math\n\\nope{\n```')).toBe('<p><span class="tex-error">\\nope{</span></p>');
    expect(html('$$\\nope{$$')).toBe('<p><span class="tex-error">$$\\nope{$$</span></p>');
  });

  test('global times', () => {
    expect(html('<time:2024-01-01T12:00:00Z>')).toBe(
      '<p><time datetime="2024-01-01T12:00:00Z">2024-01-01T12:00:00Z</time></p>',
    );
    expect(html('<time:1700000000>')).toBe('<p><time datetime="2023-11-14T22:13:20Z">1700000000</time></p>');
    expect(html('<time:whenever>')).toBe('<p><span>whenever</span></p>');
  });

  test('/me messages', () => {
    const r = render('/me waves');
    expect(r.html).toBe('<p>/me waves</p>');
    expect(r.isMeMessage).toBe(true);
    expect(render('not /me').isMeMessage).toBe(false);
  });

  test('pipe tables', () => {
    expect(html('a | b\n:- | -:\n1 | 2')).toBe(
      '<table>\n<thead>\n<tr>\n<th style="text-align: left;">a</th>\n<th style="text-align: right;">b</th>\n</tr>\n' +
        '</thead>\n<tbody>\n<tr>\n<td style="text-align: left;">1</td>\n<td style="text-align: right;">2</td>\n</tr>\n' +
        '</tbody>\n</table>',
    );
  });

  test('headings need a space', () => {
    expect(html('# Title')).toBe('<h1>Title</h1>');
    expect(html('#Title')).toBe('<p>#Title</p>');
  });
});

describe('inline syntax', () => {
  test('strikethrough, bold, italic; no underscore emphasis', () => {
    expect(html('~~gone~~ **bold** *it* _no_ __no__')).toBe(
      '<p><del>gone</del> <strong>bold</strong> <em>it</em> _no_ __no__</p>',
    );
  });

  test('single newlines are line breaks', () => {
    expect(html('a\nb')).toBe('<p>a<br>\nb</p>');
  });

  test('bare URLs become links', () => {
    const r = render('see https://example.com/x?y=1&z=2 and zulip.com.');
    expect(r.html).toBe(
      '<p>see <a href="https://example.com/x?y=1&amp;z=2">https://example.com/x?y=1&amp;z=2</a> and ' +
        '<a href="http://zulip.com">zulip.com</a>.</p>',
    );
    expect(r.links).toEqual(['https://example.com/x?y=1&z=2', 'http://zulip.com']);
    expect(r.hasLink).toBe(true);
  });

  test('Markdown links; dangerous schemes are not linked', () => {
    expect(html('[docs](https://zulip.com/api)')).toBe('<p><a href="https://zulip.com/api">docs</a></p>');
    expect(html('[x](javascript:alert(1))')).toBe('<p>[x](javascript:alert(1))</p>');
  });

  test('raw HTML is escaped, never passed through', () => {
    expect(html('<img src=x onerror=alert(1)> <b>hi</b>')).toBe(
      '<p>&lt;img src=x onerror=alert(1)&gt; &lt;b&gt;hi&lt;/b&gt;</p>',
    );
    expect(html('<script>alert(1)</script>')).not.toContain('<script>');
  });

  test('no reference-style links and no images', () => {
    expect(html('[a]\n\n[a]: https://x.com')).toBe('<p>[a]</p>\n<p>[a]: <a href="https://x.com">https://x.com</a></p>');
    expect(html('![cat](https://x.com/cat)')).toBe('<p>!<a href="https://x.com/cat">cat</a></p>');
  });

  test('links to images get an inline preview', () => {
    const r = render('look https://example.com/cat.png');
    expect(r.html).toBe(
      '<p>look <a href="https://example.com/cat.png">https://example.com/cat.png</a></p>\n' +
        '<div class="message_inline_image"><a href="https://example.com/cat.png">' +
        '<img data-src-fullsize="/thumbnail?url=https%3A%2F%2Fexample.com%2Fcat.png&amp;size=full" ' +
        'src="/thumbnail?url=https%3A%2F%2Fexample.com%2Fcat.png&amp;size=thumbnail"></a></div>',
    );
    expect(r.hasImage).toBe(true);
  });
});
