// Password logins (POST /fetch_api_key and the web client's POST /json/login) and the web
// client's sessions. Both logins share one failure limiter per realm, Zulip's
// authenticate_by_username rule: 5 failures per 30 minutes per username.
import { ApiError } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { verifyPassword } from '../../auth/passwords.js';
import { FailureLimiter, failedPasswordRule } from '../../auth/failures.js';
import { cacheSession, forgetUserSessions, newSessionSecret, sessionAuthHash, sessionIdHash } from '../../auth/session.js';
import { isSessionCredential, sessionCredential } from '../../auth/queueCredential.js';
import { deleteExpiredSessions, deleteSession, deleteUserSessions, insertSession, updateSessionAuthHash, type SessionRow } from '../../db/sessions.js';
import type { Sql } from '../../db/connect.js';
import { CacheKey } from '../../realm/caches.js';
import { SESSION_SECONDS } from '../../http/session.js';
import { userForLogin } from './create.js';

const loginFailures = new CacheKey('login failures', () => new FailureLimiter());

/** The account an email and password name, or Zulip's error for why not. */
export async function checkPasswordLogin(actor: RealmActor, username: string, password: string): Promise<User> {
  const failures = actor.caches.get(loginFailures);
  const rule = failedPasswordRule(actor.services.config.RATE_LIMITS);
  const key = username.trim().toLowerCase();
  failures.check(key, rule);
  // Counted before the slow password check, so that tries sent all at once cannot all pass
  // the check above; a successful login clears the count.
  failures.record(key, rule);
  const user = await userForLogin(actor, username.trim());
  const ok = await verifyPassword(password, user?.passwordHash ?? null);
  if (!ok || !user) throw new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401);
  if (actor.realm.deactivated) throw new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401);
  if (!user.isActive) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
  failures.clear(key);
  return user;
}

export interface NewSession {
  /** The cookie value; only its hash is stored. */
  sessionId: string;
  csrfToken: string;
}

/** Opens a session for a user who just proved their password. */
export function startSession(actor: RealmActor, user: User, now = new Date()): Promise<NewSession> {
  return actor.exclusive(async () => {
    const sessionId = newSessionSecret();
    const row: SessionRow = {
      idHash: sessionIdHash(sessionId),
      realmId: actor.realm.id,
      userId: user.id,
      csrfToken: newSessionSecret(),
      authHash: sessionAuthHash(user),
      expiresAt: new Date(now.getTime() + SESSION_SECONDS * 1000),
    };
    await deleteExpiredSessions(actor.sql, user.id, now);
    await insertSession(actor.sql, row);
    cacheSession(actor, row, row.idHash);
    return { sessionId, csrfToken: row.csrfToken };
  });
}

/** Logout: the session is gone from the database and the cache. */
export function endSession(actor: RealmActor, session: SessionRow): Promise<void> {
  return actor.exclusive(async () => {
    await deleteSession(actor.sql, session.idHash);
    cacheSession(actor, null, session.idHash);
    dropSessionQueues(actor, session.userId, (c) => c === sessionCredential(session.userId, session.idHash));
  });
}

/**
 * Ends the event queues a user registered through web sessions that `ended` says are over.
 * Their polls fail authentication anyway in one process; queue shards, which cannot look
 * sessions up, must not go on answering them.
 */
export function dropSessionQueues(actor: RealmActor, userId: number, ended: (credential: string) => boolean = () => true): void {
  for (const queue of [...actor.events.queuesOf(userId)]) {
    const c = queue.opts.credential;
    if (c && isSessionCredential(c) && ended(c)) actor.events.delete(queue);
  }
}

/**
 * After a user changed their own password, every web session of theirs stops, with its event
 * queues, except the one it was changed through, which goes on (Django's
 * update_session_auth_hash).
 */
export function keepSessionAfterPasswordChange(actor: RealmActor, userId: number, session: SessionRow | null): Promise<void> {
  return actor.exclusive(async () => {
    const user = actor.user(userId);
    if (!user) return;
    const kept = session ? sessionCredential(userId, session.idHash) : null;
    dropSessionQueues(actor, userId, (c) => c !== kept);
    if (!session) return;
    const authHash = sessionAuthHash(user);
    await updateSessionAuthHash(actor.sql, session.idHash, authHash);
    cacheSession(actor, { ...session, authHash }, session.idHash);
  });
}

/** Deactivation: the users' sessions are deleted in the deactivating transaction. */
export async function deleteSessionsOf(actor: RealmActor, tx: Sql, userIds: number[]): Promise<void> {
  await deleteUserSessions(tx, userIds);
  forgetUserSessions(actor, userIds);
}
