// Shared pieces of the incoming webhook tests: a realm with an incoming webhook bot and a
// channel, a POST to /api/v1/external/{integration} as the tool would send it, and the
// messages that ended up posted.
import { expect } from 'vitest';
import { Client, newRealm, port, rawRequest, type Reply } from '../helpers/client.js';
import { createChannel, ok, type Json } from './channels-helpers.js';

export interface HookRealm {
  owner: Client;
  subdomain: string;
  bot: { id: number; email: string; apiKey: string; client: Client };
  channel: string;
  channelId: number;
}

/** A realm whose owner has an incoming webhook bot and is subscribed to `channel`. */
export async function hookRealm(prefix: string, channel = 'integrations'): Promise<HookRealm> {
  const { owner, subdomain } = await newRealm(prefix);
  const channelId = await createChannel(owner, channel);
  const r = ok(await owner.post('/bots', { full_name: 'Hook Bot', short_name: 'hook', bot_type: 2 }));
  const email = `hook-bot@${subdomain}.localhost`;
  const client = new Client(subdomain, email, r.api_key as string, r.user_id as number);
  return { owner, subdomain, bot: { id: r.user_id as number, email, apiKey: r.api_key as string, client }, channel, channelId };
}

/** The same realm and channel with a new incoming webhook bot of the owner (its notices start afresh). */
export async function withNewBot(realm: HookRealm, shortName: string): Promise<HookRealm> {
  const r = ok(await realm.owner.post('/bots', { full_name: `${shortName} Bot`, short_name: shortName, bot_type: 2 }));
  const email = `${shortName}-bot@${realm.subdomain}.localhost`;
  const client = new Client(realm.subdomain, email, r.api_key as string, r.user_id as number);
  return { ...realm, bot: { id: r.user_id as number, email, apiKey: r.api_key as string, client } };
}

export interface HookPost {
  /** Query parameters besides `api_key` (which defaults to the bot's). */
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string or buffer as it is. */
  body?: unknown;
  contentType?: string;
  apiKey?: string | null;
}

/** POSTs to /api/v1/external/{name} the way the tool does. */
export function postHook(realm: Pick<HookRealm, 'subdomain' | 'bot'>, name: string, o: HookPost = {}): Promise<Reply> {
  const query = new URLSearchParams();
  const key = o.apiKey === undefined ? realm.bot.apiKey : o.apiKey;
  if (key !== null) query.set('api_key', key);
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) query.set(k, v);
  const body = o.body === undefined ? '' : typeof o.body === 'string' || Buffer.isBuffer(o.body) ? o.body : JSON.stringify(o.body);
  const qs = query.toString();
  return rawRequest({
    method: 'POST',
    path: `/api/v1/external/${name}${qs ? `?${qs}` : ''}`,
    host: `${realm.subdomain}.localhost:${port()}`,
    headers: { 'Content-Type': o.contentType ?? 'application/json', ...o.headers },
    body,
  });
}

export interface Posted {
  id: number;
  topic: string;
  content: string;
  sender_id: number;
  client: string;
  type: string;
  display_recipient: unknown;
}

/** The newest `n` messages `reader` can see (oldest first), as raw Markdown, topics as stored. */
export async function latest(reader: Client, n = 1, narrow: Json[] = []): Promise<Posted[]> {
  const r = ok(await reader.get('/messages', { anchor: 'newest', num_before: n, num_after: 0, narrow, apply_markdown: false, allow_empty_topic_name: true }));
  return (r.messages as Json[]).slice(-n).map((m) => ({
    id: m.id as number,
    topic: m.subject as string,
    content: m.content as string,
    sender_id: m.sender_id as number,
    client: m.client as string,
    type: m.type as string,
    display_recipient: m.display_recipient,
  }));
}

export const inChannel = (realm: HookRealm) => [{ operator: 'channel', operand: realm.channelId }];
export const DMS = [{ operator: 'is', operand: 'dm' }];

/** Posts and expects exactly one new message in the realm's channel, which is returned. */
export async function expectPosted(realm: HookRealm, name: string, o: HookPost): Promise<Posted> {
  const before = await newestId(realm);
  const r = await postHook(realm, name, { ...o, query: { stream: realm.channel, ...o.query } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body).toEqual({ result: 'success', msg: '' });
  const messages = (await latest(realm.owner, 5, inChannel(realm))).filter((m) => m.id > before);
  expect(messages).toHaveLength(1);
  const m = messages[0]!;
  expect(m.sender_id).toBe(realm.bot.id);
  expect(m.display_recipient).toBe(realm.channel);
  return m;
}

/** Posts and expects nothing posted in the channel (an ignored event, a filtered branch, an error). */
export async function expectNothingPosted(realm: HookRealm, name: string, o: HookPost): Promise<Reply> {
  const before = await newestId(realm);
  const r = await postHook(realm, name, { ...o, query: { stream: realm.channel, ...o.query } });
  expect(await newestId(realm)).toBe(before);
  return r;
}

/** The id of the newest message in the realm's channel (0: none). */
export async function newestId(realm: HookRealm): Promise<number> {
  return (await latest(realm.owner, 1, inChannel(realm))).at(-1)?.id ?? 0;
}
