// Who is calling on /json: the web client's session cookie, checked against the sessions
// table and cached in the realm's actor. A session stops working when it expires, when its
// user is deactivated (their sessions are also deleted then), when the password it was
// opened with changes, or at logout.
import { createHash, randomBytes } from 'node:crypto';
import type { RealmActor } from '../realm/actor.js';
import { CacheKey } from '../realm/caches.js';
import { findSession, type SessionRow } from '../db/sessions.js';
import { secretsEqual } from './keys.js';
import type { User } from '../model/types.js';

/** A new random secret: 32 bytes, URL-safe base64 (cookie-safe, never quoted). */
export const newSessionSecret = () => randomBytes(32).toString('base64url');

/** What is stored and cached for a cookie value: its SHA-256, never the value itself. */
export const sessionIdHash = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

/** Django's session auth hash, in spirit: a changed password hash changes it. */
export const sessionAuthHash = (user: Pick<User, 'passwordHash' | 'id'>) =>
  createHash('sha256').update(`session:${user.id}:${user.passwordHash ?? ''}`).digest('hex');

const MAX_CACHED = 10_000;
/** Sessions checked recently, by id hash; `null` remembers a hash the database does not have. */
export const sessionCache = new CacheKey('sessions', () => new Map<string, SessionRow | null>());

export function cacheSession(actor: RealmActor, row: SessionRow | null, idHash: string): void {
  const map = actor.caches.get(sessionCache);
  if (map.size >= MAX_CACHED) map.clear();
  map.set(idHash, row);
}

export function forgetUserSessions(actor: RealmActor, userIds: number[]): void {
  const ids = new Set(userIds);
  const map = actor.caches.get(sessionCache);
  for (const [key, row] of map) if (row && ids.has(row.userId)) map.delete(key);
}

export interface SessionAuth {
  user: User;
  session: SessionRow;
}

/** The user a session cookie logs in, or null (unknown, expired, deactivated, password changed). */
export async function authenticateSession(actor: RealmActor, sessionId: string | undefined, now = Date.now()): Promise<SessionAuth | null> {
  if (!sessionId || sessionId.length > 100) return null;
  const idHash = sessionIdHash(sessionId);
  const map = actor.caches.get(sessionCache);
  let row = map.get(idHash);
  if (row === undefined) {
    row = await findSession(actor.sql, actor.realm.id, idHash);
    cacheSession(actor, row, idHash);
  }
  if (!row || row.realmId !== actor.realm.id || row.expiresAt.getTime() <= now) return null;
  const user = actor.user(row.userId);
  if (!user || !user.isActive || actor.realm.deactivated) return null;
  if (!secretsEqual(row.authHash, sessionAuthHash(user))) return null;
  return { user, session: row };
}
