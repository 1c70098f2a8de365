// The JSON envelope of every response: `{result: "success", msg: "", ...}` or
// `{result: "error", msg, code, ...}`. The one place an envelope is built.
import { ApiError } from '../model/errors.js';
import type { ApiResponse } from './contract.js';

export function successBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { result: 'success', msg: '' };
  for (const k in fields) out[k] = fields[k];
  return out;
}

/** The response for an API error: its status, envelope (with the error's extra fields) and headers. */
export function errorResponse(err: ApiError): ApiResponse {
  return { status: err.status, body: { result: 'error', msg: err.message, code: err.code, ...err.extra }, headers: err.headers };
}

/** For failures that are not API errors: nothing about them reaches the client. */
export const internalError = () => new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500);

export const internalErrorResponse = () => errorResponse(internalError());
