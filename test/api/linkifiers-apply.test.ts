// Linkifiers at work: message content sent through the API is linkified in the realm's order
// (earlier linkifiers win overlaps, so reordering changes the result), changes apply to the
// next message at once, and topics get `topic_links`.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, newRealm, newUser } from '../helpers/client.js';
import { createChannel, events, register, sendToChannel } from '../helpers/messages.js';

let owner: Client;
let bob: Client;
let subdomain: string;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('lka'));
  bob = await newUser(subdomain, 'Bob Builder');
  await createChannel(owner, 'dev', {}, [bob.userId!]);
});

async function add(pattern: string, url_template: string): Promise<number> {
  const r = await owner.post('/realm/filters', { pattern, url_template });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id as number;
}

async function clear(): Promise<void> {
  const r = await owner.get('/realm/linkifiers');
  for (const l of r.body.linkifiers as Array<{ id: number }>) await owner.delete(`/realm/filters/${l.id}`);
}

async function contentOf(id: number): Promise<string> {
  const r = await bob.get(`/messages/${id}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.message.content as string;
}

describe('in message content', () => {
  it('links matches, with the named groups filled into the template', async () => {
    await clear();
    await add('(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)', 'https://github.com/{org}/{repo}/pull/{id}');
    await add('#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}');
    const id = await sendToChannel(bob, 'dev', 'links', 'fixed in zulip/terminal#12, see #2468 and issue#5');
    expect(await contentOf(id)).toBe(
      '<p>fixed in <a href="https://github.com/zulip/terminal/pull/12">zulip/terminal#12</a>, ' +
        'see <a href="https://github.com/zulip/zulip/issues/2468">#2468</a> and issue#5</p>',
    );
  });

  it('does not linkify inside code', async () => {
    await clear();
    await add('#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}');
    const id = await sendToChannel(bob, 'dev', 'links', '`#12` and\n```\n#13\n```');
    const html = await contentOf(id);
    expect(html).not.toContain('<a ');
    expect(html).toContain('<code>#12</code>');
  });

  it('earlier linkifiers win overlapping matches; reordering changes the winner', async () => {
    await clear();
    const generic = await add('[A-Z]+-(?P<id>[0-9]+)', 'https://tracker.example/{id}');
    const specific = await add('ZUL-(?P<id>[0-9]+)', 'https://zulip.example/{id}');
    const before = await sendToChannel(bob, 'dev', 'order', 'ZUL-7');
    expect(await contentOf(before)).toBe('<p><a href="https://tracker.example/7">ZUL-7</a></p>');
    const r = await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [specific, generic] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const after = await sendToChannel(bob, 'dev', 'order', 'ZUL-7');
    expect(await contentOf(after)).toBe('<p><a href="https://zulip.example/7">ZUL-7</a></p>');
    // Messages keep the HTML they were stored with.
    expect(await contentOf(before)).toBe('<p><a href="https://tracker.example/7">ZUL-7</a></p>');
  });

  it('edited and removed linkifiers apply to the next message', async () => {
    await clear();
    const id = await add('T-(?P<id>[0-9]+)', 'https://one.example/{id}');
    expect(await contentOf(await sendToChannel(bob, 'dev', 'edit', 'T-1'))).toBe('<p><a href="https://one.example/1">T-1</a></p>');
    await owner.patch(`/realm/filters/${id}`, { pattern: 'T-(?P<id>[0-9]+)', url_template: 'https://two.example/{id}' });
    expect(await contentOf(await sendToChannel(bob, 'dev', 'edit', 'T-1'))).toBe('<p><a href="https://two.example/1">T-1</a></p>');
    await owner.delete(`/realm/filters/${id}`);
    expect(await contentOf(await sendToChannel(bob, 'dev', 'edit', 'T-1'))).toBe('<p>T-1</p>');
  });

  it('POST /messages/render applies them too', async () => {
    await clear();
    await add('RFC(?P<id>[0-9]+)', 'https://www.rfc-editor.org/rfc/rfc{id}');
    const r = await bob.post('/messages/render', { content: 'per RFC6570' });
    expect(r.body.rendered).toBe('<p>per <a href="https://www.rfc-editor.org/rfc/rfc6570">RFC6570</a></p>');
  });
});

describe('in topics', () => {
  it('topic_links lists linkifier matches in the topic', async () => {
    await clear();
    await add('#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}');
    const id = await sendToChannel(bob, 'dev', 'fix #123 and https://zulip.com', 'see topic');
    const r = await bob.get(`/messages/${id}`);
    expect(r.body.message.topic_links).toEqual([
      { text: '#123', url: 'https://github.com/zulip/zulip/issues/123' },
      { text: 'https://zulip.com', url: 'https://zulip.com' },
    ]);
  });

  it('message events carry the topic links', async () => {
    await clear();
    await add('#(?P<id>[0-9]+)', 'https://github.com/zulip/zulip/issues/{id}');
    const { queueId } = await register(bob, { event_types: ['message'] });
    const id = await sendToChannel(owner, 'dev', 'about #77', 'x');
    const [event] = await events(bob, queueId, 'message');
    expect(event!.message.id).toBe(id);
    expect(event!.message.topic_links).toEqual([{ text: '#77', url: 'https://github.com/zulip/zulip/issues/77' }]);
  });

  it('topics without matches have only their bare URLs', async () => {
    await clear();
    const id = await sendToChannel(bob, 'dev', 'plain https://zulip.com topic', 'x');
    const r = await bob.get(`/messages/${id}`);
    expect(r.body.message.topic_links).toEqual([{ text: 'https://zulip.com', url: 'https://zulip.com' }]);
  });
});
