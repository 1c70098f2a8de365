// Queue shards: with QUEUE_SHARDS > 1, a realm's event queues and parked long-polls live in
// QUEUE_SHARDS shards instead of with its actor. A user's queues go to shard
// murmur3(user id) mod QUEUE_SHARDS; each shard is placed on a worker by the same rendezvous
// hashing as realms, under the name `<subdomain>~<k>`. A queue id starts with its shard
// (`s<k>-…`), so any front routes GET and DELETE /events straight to the shard's worker;
// everything else goes to the realm's actor, which stays the single writer and feeds each
// shard every event once, addressed to the queues it concerns (shardedHub.ts, shardHost.ts).
import type { ApiRequest } from '../src/http/contract.js';
import { murmur3 } from './placement.js';

const QUEUE_ID = /^s(\d{1,2})-[0-9a-f-]{36}$/;

export const shardName = (subdomain: string, shard: number) => `${subdomain}~${shard}`;

/** The shard that holds a user's queues. */
export const shardOfUser = (userId: number, shards: number) => murmur3(String(userId), 0x5eed) % shards;

/** The shard named by a queue id, or null for a queue id of no shard. */
export function shardOfQueue(queueId: string | undefined, shards: number): number | null {
  if (shards <= 1 || !queueId) return null;
  const m = QUEUE_ID.exec(queueId);
  if (!m) return null;
  const k = Number(m[1]);
  return k < shards ? k : null;
}

/** The shard a request is for: polls and deletions of a shard's queue; null for the realm. */
export function shardOfRequest(req: ApiRequest, shards: number): number | null {
  if (shards <= 1 || req.path !== '/events' || (req.method !== 'GET' && req.method !== 'DELETE')) return null;
  return shardOfQueue(req.params.queue_id, shards);
}

/** The placement key of a request: its realm, or its queue's shard. */
export function routeKey(req: ApiRequest, shards: number): string {
  const k = shardOfRequest(req, shards);
  return k === null ? req.subdomain : shardName(req.subdomain, k);
}
