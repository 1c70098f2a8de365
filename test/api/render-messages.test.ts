// Messages sent through the API come back rendered as Zulip renders them: mentions (with the
// `mentioned` flag for exactly the users notified), channel and topic links, emoji, code
// blocks, math, spoilers, escaped HTML; POST /messages/render previews the same HTML; group
// mentions need can_mention_group.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, expectError, register, sendToChannel, systemGroupId } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let carol: Client;
let guest: Client;
let subdomain: string;
let generalId: number;
let secretId: number;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('rmsg'));
  bob = await newUser(subdomain, 'Bob Builder');
  carol = await newUser(subdomain, 'Carol Cook');
  guest = await newUser(subdomain, 'Gus Guest', 600);
  generalId = await createChannel(owner, 'general', {}, [bob.userId!, carol.userId!, guest.userId!]);
  secretId = await createChannel(owner, 'secret', { invite_only: true }, []);
});

async function messageAs(client: Client, id: number): Promise<{ content: string; flags: string[] }> {
  const r = await client.get(`/messages/${id}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { content: r.body.message.content as string, flags: r.body.message.flags as string[] };
}

async function rendered(client: Client, content: string): Promise<string> {
  const r = await client.post('/messages/render', { content });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.rendered as string;
}

describe('mentions', () => {
  it('renders a mention by name and by id, and flags exactly the users mentioned', async () => {
    const id = await sendToChannel(owner, 'general', 'mentions', `hi @**Bob Builder** and @**Carol Cook|${carol.userId}**`);
    const m = await messageAs(owner, id);
    expect(m.content).toBe(
      `<p>hi <span class="user-mention" data-user-id="${bob.userId}">@Bob Builder</span> and ` +
        `<span class="user-mention" data-user-id="${carol.userId}">@Carol Cook</span></p>`,
    );
    expect((await messageAs(bob, id)).flags).toContain('mentioned');
    expect((await messageAs(carol, id)).flags).toContain('mentioned');
    expect((await messageAs(guest, id)).flags).not.toContain('mentioned');
  });

  it('a silent mention renders without @ and notifies nobody', async () => {
    const id = await sendToChannel(owner, 'general', 'mentions', '@_**Bob Builder** was here');
    const m = await messageAs(bob, id);
    expect(m.content).toBe(`<p><span class="user-mention silent" data-user-id="${bob.userId}">Bob Builder</span> was here</p>`);
    expect(m.flags).not.toContain('mentioned');
  });

  it('names are matched case-insensitively; a wrong id or unknown name stays text', async () => {
    const id = await sendToChannel(owner, 'general', 'mentions', `@**bob builder** @**Bob Builder|${carol.userId}** @**Nobody Here**`);
    const m = await messageAs(owner, id);
    expect(m.content).toBe(
      `<p><span class="user-mention" data-user-id="${bob.userId}">@Bob Builder</span> ` +
        `@<strong>Bob Builder|${carol.userId}</strong> @<strong>Nobody Here</strong></p>`,
    );
    expect((await messageAs(carol, id)).flags).not.toContain('mentioned');
  });

  it('a mention of a user from another realm is not resolved', async () => {
    const other = await newRealm('rmsgx');
    const id = await sendToChannel(owner, 'general', 'mentions', `@**Olivia Owner|${other.owner.userId}**`);
    expect((await messageAs(owner, id)).content).not.toContain('user-mention');
  });

  it('group mentions notify members; a member outside can_mention_group is refused', async () => {
    const admins = await systemGroupId(owner, 'role:administrators');
    const create = await owner.post('/user_groups/create', {
      name: 'builders',
      description: 'people who build',
      members: [bob.userId],
      can_mention_group: admins,
    });
    expect(create.status, JSON.stringify(create.body)).toBe(200);
    const groupId = create.body.group_id as number;

    const id = await sendToChannel(owner, 'general', 'groups', 'ping @*builders*');
    const m = await messageAs(bob, id);
    expect(m.content).toBe(`<p>ping <span class="user-group-mention" data-user-group-id="${groupId}">@builders</span></p>`);
    expect(m.flags).toContain('mentioned');

    const refused = await carol.post('/messages', { type: 'stream', to: 'general', topic: 'groups', content: 'ping @*builders*' });
    expectError(refused, 400, 'BAD_REQUEST', "You are not allowed to mention user group 'builders'.");
    // A silent mention notifies nobody, so it needs no permission.
    const silent = await sendToChannel(carol, 'general', 'groups', 'thanks @_*builders*');
    expect((await messageAs(bob, silent)).flags).not.toContain('mentioned');
    // Editing a message into a group mention is checked the same way.
    const edited = await carol.patch(`/messages/${silent}`, { content: 'ping @*builders*' });
    expectError(edited, 400, 'BAD_REQUEST', "You are not allowed to mention user group 'builders'.");
  });

  it('wildcards render as Zulip does', async () => {
    const id = await sendToChannel(owner, 'general', 'wild', '@**all** and @**topic**');
    const m = await messageAs(bob, id);
    expect(m.content).toBe(
      '<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span> and ' +
        '<span class="topic-mention">@topic</span></p>',
    );
    expect(m.flags).toContain('stream_wildcard_mentioned');
  });
});

describe('links to channels and topics', () => {
  it('links a channel and a topic (with its latest message id)', async () => {
    const latest = await sendToChannel(owner, 'general', 'the plan', 'first');
    const id = await sendToChannel(owner, 'general', 'links', 'see #**general** and #**general>the plan**');
    expect((await messageAs(owner, id)).content).toBe(
      `<p>see <a class="stream" data-stream-id="${generalId}" href="/#narrow/channel/${generalId}-general">#general</a> and ` +
        `<a class="stream-topic" data-stream-id="${generalId}" href="/#narrow/channel/${generalId}-general/topic/the.20plan/with/${latest}">#general &gt; the plan</a></p>`,
    );
  });

  it('a private channel links only for those who may know it exists', async () => {
    expect(await rendered(owner, '#**secret**')).toBe(
      `<p><a class="stream" data-stream-id="${secretId}" href="/#narrow/channel/${secretId}-secret">#secret</a></p>`,
    );
    const asBob = await rendered(bob, '#**secret**');
    expect(asBob).not.toContain('data-stream-id');
    expect(asBob).not.toContain(String(secretId));
  });
});

describe('formatting', () => {
  it('renders emoji, code blocks with their language, math and spoilers', async () => {
    const content = [
      'so :smile:',
      '',
      '```python',
      'print("<b>")',
      '```',
      '',
      '$$x^2$$',
      '',
      '```spoiler The ending',
      'It was a dream.',
      '```',
    ].join('\n');
    const id = await sendToChannel(owner, 'general', 'formatting', content);
    const html = (await messageAs(owner, id)).content;
    expect(html).toContain('<p>so <span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>');
    expect(html).toMatch(/<div class="codehilite" data-code-language="Python"><pre><span><\/span><code>[^]*&lt;b&gt;[^]*<\/code><\/pre><\/div>/);
    expect(html).toContain('<span class="katex">');
    expect(html).toContain(
      '<div class="spoiler-block"><div class="spoiler-header">\n<p>The ending</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>It was a dream.</p>\n</div></div>',
    );
  });

  it('escapes HTML in the content', async () => {
    const id = await sendToChannel(owner, 'general', 'formatting', '<script>alert(1)</script> <img src=x onerror=alert(2)>');
    const html = (await messageAs(owner, id)).content;
    expect(html).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt;</p>');
  });

  it('the realm default code block language applies to fences without one', async () => {
    const r = await owner.patch('/realm', { default_code_block_language: 'javascript' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    try {
      expect(await rendered(bob, '```\nlet x = 1;\n```')).toContain('data-code-language="JavaScript"');
    } finally {
      await owner.patch('/realm', { default_code_block_language: '' });
    }
  });

  it("the sender's translate_emoticons setting turns :) into an emoji", async () => {
    expect(await rendered(carol, 'hello :)')).toBe('<p>hello :)</p>');
    const r = await carol.patch('/settings', { translate_emoticons: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await rendered(carol, 'hello :)')).toContain('class="emoji emoji-1f642"');
    expect(await rendered(bob, 'hello :)')).toBe('<p>hello :)</p>');
  });

  it('/me messages are flagged', async () => {
    const id = await sendToChannel(owner, 'general', 'formatting', '/me waves');
    const r = await owner.get(`/messages/${id}`);
    expect(r.body.message.is_me_message).toBe(true);
    expect(r.body.message.content).toBe('<p>/me waves</p>');
  });

  it('message events carry the rendered content', async () => {
    const { queueId } = await register(bob, { event_types: ['message'], apply_markdown: true });
    const id = await sendToChannel(owner, 'general', 'events', '**bold** @**Bob Builder**');
    const [event] = await events(bob, queueId, 'message');
    expect(event!.message.id).toBe(id);
    expect(event!.message.content).toBe(
      `<p><strong>bold</strong> <span class="user-mention" data-user-id="${bob.userId}">@Bob Builder</span></p>`,
    );
    expect(event!.flags).toContain('mentioned');
  });
});

describe('POST /messages/render', () => {
  it('returns the HTML without sending anything', async () => {
    expect(await rendered(bob, '**hi** `code` ~~gone~~')).toBe('<p><strong>hi</strong> <code>code</code> <del>gone</del></p>');
    expect(await rendered(bob, '')).toBe('');
  });

  it('needs content and authentication', async () => {
    expectError(await bob.post('/messages/render', {}), 400, 'REQUEST_VARIABLE_MISSING', "Missing 'content' argument");
    const anonymous = await bob.anonymous().post('/messages/render', { content: 'x' });
    expect(anonymous.status).toBe(401);
  });
});

describe('other rendered text', () => {
  it('channel descriptions are rendered', async () => {
    const r = await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'described', description: 'About **this** :smile:' }] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = (await owner.get('/get_stream_id', { stream: 'described' })).body.stream_id as number;
    const s = await owner.get(`/streams/${id}`);
    expect(s.body.stream.rendered_description).toBe(
      '<p>About <strong>this</strong> <span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>',
    );
  });

  it('channel folder descriptions are rendered', async () => {
    const r = await owner.post('/channel_folders/create', { name: 'Teams', description: 'All *teams*' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const list = await owner.get('/channel_folders');
    const folder = (list.body.channel_folders as Array<Record<string, unknown>>).find((f) => f.name === 'Teams');
    expect(folder!.rendered_description).toBe('<p>All <em>teams</em></p>');
  });
});
