// What the main thread and the keeper thread tell each other. Times in shared memory are
// absolute (performance.timeOrigin + performance.now()), comparable between the threads, in
// whole microseconds, read and written with Atomics so that each slot is seen whole and the
// slots in the order they were written.
import type { MemberKeys } from './rounds.js';

/** Slots of the shared Float64Array. */
export const BEAT = 0; // the main thread's last beat
export const REALM_ROUND_START = 1; // when the last realm round that renewed every lease asked began
export const REALM_ROUND_SEQ = 2; // the newest lease (by seq) that round covered
export const SHARED_SLOTS = 3;

export const absoluteNow = () => performance.timeOrigin + performance.now();

export const newShared = () => new BigInt64Array(new SharedArrayBuffer(SHARED_SLOTS * BigInt64Array.BYTES_PER_ELEMENT));
export const storeTime = (a: BigInt64Array, slot: number, ms: number) => Atomics.store(a, slot, BigInt(Math.round(ms * 1000)));
export const loadTime = (a: BigInt64Array, slot: number) => Number(Atomics.load(a, slot)) / 1000;
export const storeNumber = (a: BigInt64Array, slot: number, n: number) => Atomics.store(a, slot, BigInt(n));
export const loadNumber = (a: BigInt64Array, slot: number) => Number(Atomics.load(a, slot));

export interface KeeperTiming {
  MEMBER_TTL_MS: number;
  HEARTBEAT_MS: number;
  LEASE_TTL_MS: number;
  LEASE_RENEW_MS: number;
  STALL_LIMIT_MS: number;
}

export interface KeeperSetup {
  redisUrl: string;
  redisPrefix: string;
  databaseUrl: string;
  owner: string;
  timing: KeeperTiming;
  shared: SharedArrayBuffer;
}

export type ToKeeper =
  | { op: 'member'; member: MemberKeys }
  | { op: 'memberGone'; ack: number }
  | { op: 'lease'; realmId: number; epoch: number; seq: number }
  | { op: 'leaseGone'; realmId: number; seq: number }
  | { op: 'shard'; key: string; seq: number }
  | { op: 'shardGone'; key: string; seq: number }
  | { op: 'close'; ack: number };

export type FromKeeper =
  | { op: 'ready' }
  | { op: 'ack'; ack: number }
  | { op: 'realmLost'; realmId: number; epoch: number }
  | { op: 'shardLost'; key: string; seq: number }
  | { op: 'log'; level: 'warn' | 'info'; msg: string; data: Record<string, unknown> };
