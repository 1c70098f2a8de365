// Helpers for message tests: channels, event queues, sending.
import { expect } from 'vitest';
import type { Client, Params, Reply } from './client.js';

/** Creates a channel (subscribing the caller and the given users) and returns its id. */
export async function createChannel(
  creator: Client,
  name: string,
  opts: Params = {},
  principals: number[] = [],
): Promise<number> {
  const r = await creator.post('/users/me/subscriptions', {
    subscriptions: [{ name }],
    ...(principals.length ? { principals: [creator.userId, ...principals] } : {}),
    ...opts,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const id = await creator.get('/get_stream_id', { stream: name });
  expect(id.status, JSON.stringify(id.body)).toBe(200);
  return id.body.stream_id as number;
}

export async function subscribe(actor: Client, name: string, principals?: number[]): Promise<void> {
  const r = await actor.post('/users/me/subscriptions', { subscriptions: [{ name }], ...(principals ? { principals } : {}) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

export async function unsubscribe(actor: Client, name: string, principals?: number[]): Promise<void> {
  const r = await actor.delete('/users/me/subscriptions', { subscriptions: [name], ...(principals ? { principals } : {}) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

export async function register(client: Client, params: Params = {}): Promise<{ queueId: string; body: Reply['body'] }> {
  const r = await client.post('/register', params);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { queueId: r.body.queue_id as string, body: r.body };
}

/** Events queued so far (non-blocking), optionally only of one type. */
export async function events(client: Client, queueId: string, type?: string): Promise<Array<Record<string, any>>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await client.get('/events', { queue_id: queueId, last_event_id: -1, dont_block: true });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const all = r.body.events as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  return type ? all.filter((e) => e.type === type) : all;
}

export async function sendToChannel(client: Client, to: string | number, topic: string, content: string, extra: Params = {}): Promise<number> {
  const r = await client.post('/messages', { type: 'stream', to: typeof to === 'number' ? String(to) : to, topic, content, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id as number;
}

export async function sendDirect(client: Client, to: number[], content: string, extra: Params = {}): Promise<number> {
  const r = await client.post('/messages', { type: 'direct', to, content, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.id as number;
}

export async function fetchMessages(client: Client, params: Params = {}): Promise<Reply['body']> {
  const r = await client.get('/messages', { anchor: 'newest', num_before: 100, num_after: 0, ...params });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

/** Ids of the messages a narrow returns to this client. */
export async function idsIn(client: Client, narrow: unknown[] = [], params: Params = {}): Promise<number[]> {
  const body = await fetchMessages(client, { narrow, ...params });
  return (body.messages as Array<{ id: number }>).map((m) => m.id);
}

export function expectError(r: Reply, status: number, code: string, msg?: string | RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.result).toBe('error');
  expect(r.body.code).toBe(code);
  if (msg instanceof RegExp) expect(r.body.msg).toMatch(msg);
  else if (msg !== undefined) expect(r.body.msg).toBe(msg);
}

/** Id of a system group (`role:nobody`, `role:members`, …) of the client's realm. */
export async function systemGroupId(client: Client, name: string): Promise<number> {
  const r = await client.get('/user_groups', { include_deactivated_groups: true });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const group = (r.body.user_groups as Array<{ id: number; name: string }>).find((g) => g.name === name);
  if (!group) throw new Error(`no system group ${name}`);
  return group.id;
}

export async function patchRealm(owner: Client, params: Params): Promise<void> {
  const r = await owner.patch('/realm', params);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}
