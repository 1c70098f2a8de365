// Shared pieces of the channel and subscription tests: queues, quick checks, and direct
// database setup for states the API cannot reach (realm policies, bots). Database writes
// must happen before the realm's first API request (its actor caches the realm).
import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Client, Reply } from '../helpers/client.js';
import { Client as ApiClient } from '../helpers/client.js';
import { testDb } from '../helpers/db.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Queue {
  client: Client;
  id: string;
  lastEventId: number;
  state: Json;
}

export async function openQueue(client: Client, params: Record<string, unknown> = {}): Promise<Queue> {
  const r = await client.post('/register', params);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { client, id: r.body.queue_id as string, lastEventId: r.body.last_event_id as number, state: r.body };
}

/** Events since the last read (non-blocking), without heartbeats. */
export async function drain(queue: Queue): Promise<Json[]> {
  const r = await queue.client.get('/events', { queue_id: queue.id, last_event_id: queue.lastEventId, dont_block: true });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  if (r.body.events.length) queue.lastEventId = r.body.events[r.body.events.length - 1].id;
  return (r.body.events as Json[]).filter((e) => e.type !== 'heartbeat');
}

export function expectError(r: Reply, status: number, code: string, msg?: string | RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.result).toBe('error');
  expect(r.body.code).toBe(code);
  if (typeof msg === 'string') expect(r.body.msg).toBe(msg);
  else if (msg) expect(r.body.msg).toMatch(msg);
}

export function ok(r: Reply): Json {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.result).toBe('success');
  return r.body;
}

/** Creates (or joins) a channel as `client` and returns its id. */
export async function createChannel(client: Client, name: string, params: Record<string, unknown> = {}): Promise<number> {
  ok(await client.post('/users/me/subscriptions', { subscriptions: [{ name }], ...params }));
  return ok(await client.get('/get_stream_id', { stream: name })).stream_id as number;
}

export async function channel(client: Client, id: number): Promise<Json> {
  return ok(await client.get(`/streams/${id}`)).stream as Json;
}

/** System group ids of a realm, read from the database. */
export async function systemGroupIds(subdomain: string): Promise<Record<string, number>> {
  const rows = await testDb()<{ name: string; id: number }[]>`
    SELECT g.name, g.id FROM user_groups g JOIN realms r ON r.id = g.realm_id
    WHERE r.string_id = ${subdomain} AND g.is_system_group`;
  return Object.fromEntries(rows.map((r) => [r.name, r.id]));
}

/** A generic bot owned by `ownerId`, written straight to the database. */
export async function insertBot(subdomain: string, ownerId: number, name: string): Promise<Client> {
  const apiKey = randomBytes(16).toString('hex');
  const email = `${name.toLowerCase().replace(/\W+/g, '-')}-bot@${subdomain}.test`;
  const rows = await testDb()<{ id: number }[]>`
    INSERT INTO users (realm_id, delivery_email, full_name, api_key, role, is_bot, bot_type, bot_owner_id)
    SELECT id, ${email}, ${name}, ${apiKey}, 400, true, 1, ${ownerId} FROM realms WHERE string_id = ${subdomain}
    RETURNING id`;
  return new ApiClient(subdomain, email, apiKey, rows[0]!.id);
}

export const names = (streams: Json[]) => streams.map((s) => s.name as string);
