// The JSON envelope of every response: `{result: "success", msg: "", ...}` or
// `{result: "error", msg, code, ...}`. The one place an envelope is built.
import { ApiError } from '../model/errors.js';
import type { ApiResponse } from './contract.js';

export function successBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { result: 'success', msg: '' };
  for (const k in fields) out[k] = fields[k];
  return out;
}

/**
 * The response for an API error: its status, envelope (with the error's extra fields) and
 * headers. An error with a 2xx status (an incoming webhook's unsupported event, which the
 * sending tool must not retry) reports `result: "success"`, as Zulip's does.
 */
export function errorResponse(err: ApiError): ApiResponse {
  const result = err.status >= 200 && err.status < 300 ? 'success' : 'error';
  return { status: err.status, body: { result, msg: err.message, code: err.code, ...err.extra }, headers: err.headers };
}

/** For failures that are not API errors: nothing about them reaches the client. */
export const internalError = () => new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500);

export const internalErrorResponse = () => errorResponse(internalError());
