// The renewals that keep a worker's claims alive: its membership key, its realm leases (rows
// in Postgres) and its queue-shard leases (keys in Redis). The keeper thread runs them on a
// timer of its own; leases.ts runs the realm round itself when it has no keeper (tests).
import type { Redis } from 'ioredis';
import type { Sql } from '../../src/db/connect.js';

// KEYS: lease. ARGV: owner, ttl ms. Renews a lease this worker holds; 0 when it is not ours.
export const SHARD_LEASE_RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
// KEYS: lease. ARGV: owner. Gives a lease up if it is ours.
export const SHARD_LEASE_RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

/**
 * Extends every listed realm lease this worker owns; the epochs of those it still owns. The
 * ids go as an array literal: a connection's first query cannot bind a typed array yet.
 */
export async function renewRealmLeases(sql: Sql, owner: string, realmIds: number[], ttlMs: number): Promise<Map<number, number>> {
  if (realmIds.length === 0) return new Map();
  const rows = await sql<{ realm_id: number; epoch: string }[]>`
    UPDATE realm_leases SET expires_at = now() + ${ttlMs} * interval '1 millisecond'
    WHERE owner = ${owner} AND realm_id = ANY(${`{${realmIds.join(',')}}`}::int[])
    RETURNING realm_id, epoch`;
  return new Map(rows.map((r) => [r.realm_id, Number(r.epoch)]));
}

/** Extends a queue shard's lease; false when the lease is not ours any more. */
export async function renewShardLease(redis: Redis, key: string, owner: string, ttlMs: number): Promise<boolean> {
  return (await redis.eval(SHARD_LEASE_RENEW, 1, key, owner, String(ttlMs))) === 1;
}

/** A member's key and its entry in the members hash, announced on the membership channel. */
export interface MemberKeys {
  key: string;
  members: string;
  channel: string;
  id: string;
  info: string;
}

export async function announceMember(redis: Redis, m: MemberKeys, ttlMs: number): Promise<void> {
  await redis.multi().set(m.key, '1', 'PX', ttlMs).hset(m.members, m.id, m.info).exec();
  await redis.publish(m.channel, JSON.stringify({ op: 'join', id: m.id }));
}

/**
 * Refreshes a member's key; when it had expired (the process was paused, or Redis lost it)
 * the others counted the member out, so it announces itself again (its realms are decided
 * by the leases). True when the key was still there.
 */
export async function refreshMember(redis: Redis, m: MemberKeys, ttlMs: number): Promise<boolean> {
  if ((await redis.set(m.key, '1', 'PX', ttlMs, 'XX')) !== null) return true;
  await announceMember(redis, m, ttlMs);
  return false;
}
