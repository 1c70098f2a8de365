// Request parameters from the query string and the body: form-encoded, multipart, or JSON.
import { getParts } from 'uWebSockets.js';
import { ApiError } from '../model/errors.js';
import type { RawParams } from './params.js';

/**
 * Form-encoded parameters (a query string or a form body), as URLSearchParams reads them; a
 * later value of a name replaces an earlier one. Text without `%` or `+` (a long-poll's
 * `queue_id=…&last_event_id=…`) has nothing to decode and is split in place, without the
 * iterator and the entry arrays URLSearchParams makes.
 */
export function parseQuery(query: string, into: RawParams = {}): RawParams {
  if (!query) return into;
  if (query.includes('%') || query.includes('+')) {
    for (const [k, v] of new URLSearchParams(query)) into[k] = v;
    return into;
  }
  let start = query.charCodeAt(0) === 63 ? 1 : 0; // a leading '?' is not part of a name
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end < 0) end = query.length;
    if (end > start) {
      const eq = query.indexOf('=', start);
      if (eq < 0 || eq > end) into[query.slice(start, end)] = '';
      else into[query.slice(start, eq)] = query.slice(eq + 1, end);
    }
    start = end + 1;
  }
  return into;
}

const decoder = new TextDecoder();

export function parseBody(body: Buffer, contentType: string, into: RawParams): RawParams {
  if (body.length === 0) return into;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') {
    const ab = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
    const parts = getParts(ab, contentType);
    // The parser answers a body without a single delimiter with no parts at all; only a body
    // that carries the boundary (an empty form is `--boundary--`) may have none.
    const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
    const delimited = boundary !== null && body.includes(`--${boundary[1] ?? boundary[2]}`);
    if (!parts || (parts.length === 0 && !delimited)) throw new ApiError('BAD_REQUEST', 'Malformed multipart body', 400);
    for (const part of parts) {
      if (part.filename !== undefined) continue; // file uploads are not parameters
      into[part.name] = decoder.decode(part.data);
    }
    return into;
  }
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new ApiError('INVALID_JSON', 'Malformed JSON', 400);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new ApiError('INVALID_JSON', 'Malformed JSON', 400);
    }
    for (const [k, v] of Object.entries(parsed)) into[k] = typeof v === 'string' ? v : JSON.stringify(v);
    return into;
  }
  // application/x-www-form-urlencoded, and clients that send form data without a type.
  return parseQuery(body.toString('utf8'), into);
}

/**
 * The parameters in an incoming webhook's body. Integrations parse their payload themselves
 * (from the raw body), so a JSON body gives no parameters; form bodies do (`api_key`, or a
 * Slack-style `payload` field), except a JSON text sent with a form content type, as some
 * tools do, which is left to the integration.
 */
export function parseWebhookBody(body: Buffer, contentType: string, into: RawParams): RawParams {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') return parseBody(body, contentType, into);
  if (type === 'application/json' || body.length === 0) return into;
  const text = body.toString('utf8');
  if (/^\s*[[{]/.test(text)) return into;
  return parseQuery(text, into);
}
