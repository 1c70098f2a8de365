// The JSON envelope of every response: `{result: "success", msg: "", ...}` or
// `{result: "error", msg, code, ...}`. The one place an envelope is built.
import { ApiError } from '../model/errors.js';
import type { ApiResponse } from './contract.js';
import type { JsonText } from './jsonText.js';

export function successBody(fields: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { result: 'success', msg: '' };
  for (const k in fields) out[k] = fields[k];
  return out;
}

/** `{"result":"success","msg":""`: the success envelope's text up to its fields. */
const SUCCESS_HEAD = JSON.stringify(successBody()).slice(0, -1);

/** Success bodies of field texts without ignored parameters: a cached answer's body is made once. */
const successTexts = new WeakMap<JsonText, string>();

/**
 * The JSON text of a success body whose fields are given as text (an object's JSON text made
 * ahead): the text JSON.stringify gives for successBody of those fields, with
 * `ignored_parameters_unsupported` last when parameters were ignored.
 */
export function successJson(fields: JsonText, ignored: string[] = []): string {
  const known = ignored.length === 0 ? successTexts.get(fields) : undefined;
  if (known !== undefined) return known;
  const members = fields.text.slice(1, -1);
  let text = SUCCESS_HEAD + (members ? ',' + members : '');
  if (ignored.length) text += ',"ignored_parameters_unsupported":' + JSON.stringify(ignored);
  text += '}';
  if (ignored.length === 0) successTexts.set(fields, text);
  return text;
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
