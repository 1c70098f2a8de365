// What a database failure says about the write that met it, read from the error's own fields
// (postgres.js errors and the socket errors beneath them), so that callers need not know the
// driver.

/** Connection failures: the database (or Redis, whose client reports the same socket codes) is out of reach. */
export const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT',
  'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
]);

/** Of those, the ones met by a statement already sent: it may or may not have taken effect. */
const LOST_MID_STATEMENT = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** SQLSTATEs of a session the server ended (terminated, shut down, idle in a transaction too long) or lost. */
const sessionEnded = (state: string) => state.startsWith('57P') || state.startsWith('08') || state === '25P03';

const codeOf = (err: unknown): string => {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
};

/**
 * The session ended while the write was in flight: the connection broke, or the server ended
 * the session. Whether the write committed is to be checked (a broken connection may have
 * lost the answer to a COMMIT that took effect).
 */
export function sessionLost(err: unknown): boolean {
  const code = codeOf(err);
  return LOST_MID_STATEMENT.has(code) || ((err as { name?: unknown } | null)?.name === 'PostgresError' && sessionEnded(code));
}

/** A unique violation on the named constraint (a row with that key is already stored). */
export function uniqueViolation(err: unknown, constraint: string): boolean {
  return codeOf(err) === '23505' && (err as { constraint_name?: unknown }).constraint_name === constraint;
}
