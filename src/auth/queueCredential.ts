// The credential an event queue was registered with, as a digest. Where a queue's polls are
// answered by a process that does not hold the realm (a cluster's queue shards), that process
// cannot look the caller up; it compares the digest of the poll's credential with the queue's.
// API keys are unique, so a key can only match queues of the user it belongs to. What ends a
// credential ends its queues: a new API key or a deactivation drops all of the user's queues,
// a logout the queues of that session, a password change those of every session.
import { createHash } from 'node:crypto';
import type { ApiRequest } from '../http/contract.js';
import { parseBasicAuth } from './basic.js';
import { sessionIdHash } from './session.js';

const digest = (kind: 'k' | 's', userId: number, secret: string) =>
  `${kind}.${createHash('sha256').update(`${userId}\0${secret}`).digest('base64url')}`;

/** The digest for a web session, from the session's stored id hash. */
export const sessionCredential = (userId: number, idHash: string) => digest('s', userId, idHash);

export const isSessionCredential = (credential: string | undefined) => credential?.startsWith('s.') === true;

type Caller = Pick<ApiRequest, 'prefix' | 'sessionId' | 'authorization' | 'csrfToken'>;

/** What a queue keeps of its caller: the credential's digest, and for a web session its CSRF token's. */
export function queueAccess(req: Caller, userId: number): { credential?: string; csrf?: string } {
  const credential = queueCredential(req, userId);
  if (!credential) return {};
  return req.prefix === 'json' && req.csrfToken ? { credential, csrf: csrfDigest(req.csrfToken) } : { credential };
}

export const csrfDigest = (token: string) => createHash('sha256').update(token).digest('base64url');

/** The digest a queue of `userId` keeps of the request's credential; null without one. */
export function queueCredential(req: Pick<ApiRequest, 'prefix' | 'sessionId' | 'authorization'>, userId: number): string | null {
  if (req.prefix === 'json') return req.sessionId ? sessionCredential(userId, sessionIdHash(req.sessionId)) : null;
  try {
    const creds = parseBasicAuth(req.authorization);
    return creds ? digest('k', userId, creds.password) : null;
  } catch {
    return null;
  }
}
