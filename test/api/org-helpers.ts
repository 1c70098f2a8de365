// Shared pieces of the organization administration tests: event queues and quick checks.
import { expect } from 'vitest';
import { newUser, type Client, type Reply } from '../helpers/client.js';

export interface Queue {
  client: Client;
  id: string;
  lastEventId: number;
}

/** Registers a queue for the given event types (all when omitted). */
export async function openQueue(client: Client, params: Record<string, unknown> = {}): Promise<Queue> {
  const r = await client.post('/register', params);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { client, id: r.body.queue_id as string, lastEventId: r.body.last_event_id as number };
}

/** Events that arrived since the last read (non-blocking). */
export async function drain(queue: Queue): Promise<Record<string, any>[]> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await queue.client.get('/events', { queue_id: queue.id, last_event_id: queue.lastEventId, dont_block: true });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const events = (r.body.events as Record<string, any>[]).filter((e) => e.type !== 'heartbeat'); // eslint-disable-line @typescript-eslint/no-explicit-any
  if (r.body.events.length) queue.lastEventId = r.body.events[r.body.events.length - 1].id;
  return events;
}

export function expectError(r: Reply, status: number, code: string, msg?: string | RegExp): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.result).toBe('error');
  expect(r.body.code).toBe(code);
  if (typeof msg === 'string') expect(r.body.msg).toBe(msg);
  else if (msg) expect(r.body.msg).toMatch(msg);
}

export function expectSuccess(r: Reply): Reply['body'] {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.result).toBe('success');
  return r.body;
}

/** The id of a system group by name, read through GET /user_groups. */
export async function systemGroupIds(client: Client): Promise<Record<string, number>> {
  const r = await client.get('/user_groups');
  expectSuccess(r);
  const out: Record<string, number> = {};
  for (const g of r.body.user_groups) if (g.is_system_group) out[g.name] = g.id;
  return out;
}

/**
 * A user created through the admin CLI, already known to the running realm: the server
 * picks CLI-made users up from its change feed, which a first request of theirs forces.
 */
export async function knownUser(subdomain: string, name: string, role = 400): Promise<Client> {
  const c = await newUser(subdomain, name, role);
  expectSuccess(await c.get('/users/me'));
  return c;
}
