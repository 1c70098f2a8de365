// Failures that are not API errors but still have an answer a client can act on: the database
// refusing a value (a data exception, an index row too large) is the client's bad input (400,
// nothing was written: the transaction rolled back before the cache changed); the database or
// Redis being out of reach, shutting down or asking for a retry is an outage (503 with
// Retry-After, so clients and proxies retry; an idempotency key makes the retry safe).
// Recognized by the error's own fields, so this floor imports neither driver.
import { ApiError } from '../model/errors.js';
import { CONNECTION_ERROR_CODES } from '../db/failures.js';

/** Seconds a client is asked to wait before retrying during an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;


/** SQLSTATEs of a server going away or asking to try again (classes 08, 53, 57P, 40). */
const isOutageState = (state: string) =>
  state.startsWith('08') || state.startsWith('53') || state.startsWith('57P') || state === '40001' || state === '40P01';

/** SQLSTATEs of a value the database will not take: data exceptions, program limits. */
const isBadValueState = (state: string) => state.startsWith('22') || state === '54000';

const REDIS_OUTAGE = /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit)/;

export function outageError(): ApiError {
  const seconds = String(OUTAGE_RETRY_AFTER_SECONDS);
  return new ApiError('SERVER_NOT_READY', 'Service temporarily unavailable, please try again', 503, {}, { 'Retry-After': seconds });
}

/** The API error a driver failure stands for, or null for a failure that is a bug. */
export function apiErrorForFailure(err: unknown): ApiError | null {
  if (!(err instanceof Error)) return null;
  const e = err as Error & { code?: unknown; errno?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (e.name === 'PostgresError' && code) {
    if (isOutageState(code)) return outageError();
    if (isBadValueState(code)) return new ApiError('BAD_REQUEST', 'Invalid input: a value is out of range or too large', 400);
    return null;
  }
  if (CONNECTION_ERROR_CODES.has(code)) return outageError();
  if (e.name === 'MaxRetriesPerRequestError' || REDIS_OUTAGE.test(e.message)) return outageError();
  return null;
}
