// Plain-data descriptions of requests, so the runner can hand them to a load-generating
// child process. Bodies and paths may carry placeholders filled in at send time:
//   {{t}}   the send instant in microseconds on the machine's monotonic clock
//   {{seq}} a per-generator sequence number
//   {{s}}   the instant the request was scheduled to start, in µs on the same clock (the open
//           loop's schedule; other generators use the send instant)

import { monotonicMicros } from './stats.js';

export interface RequestSpec {
  method: string;
  path: string;
  /** The Host header (selects the realm). */
  host: string;
  /** Full Authorization header value, e.g. "Basic …". */
  authorization?: string;
  /** application/x-www-form-urlencoded body. */
  body?: string;
}

export interface Credentials {
  email: string;
  apiKey: string;
}

export function basicAuth(c: Credentials): string {
  return 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');
}

/** application/x-www-form-urlencoded; objects and arrays are JSON-encoded as Zulip expects. */
export function formEncode(params: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
  }
  return parts.join('&');
}

/**
 * A form body whose values may hold placeholders: they must reach the agent unescaped (what
 * replaces them is digits).
 */
export function formEncodeWithPlaceholders(params: Record<string, unknown>): string {
  return formEncode(params).replace(/%7B%7B(t|seq|s)%7D%7D/g, '{{$1}}');
}

export function hasPlaceholders(spec: RequestSpec): boolean {
  return /\{\{(t|seq|s)\}\}/.test(spec.path + (spec.body ?? ''));
}

function fill(text: string, seq: number, scheduledMs?: number): string {
  if (text.indexOf('{{') < 0) return text;
  const now = monotonicMicros();
  const scheduled = scheduledMs === undefined ? now : String(Math.round(scheduledMs * 1000));
  return text.replace(/\{\{t\}\}/g, now).replace(/\{\{seq\}\}/g, String(seq)).replace(/\{\{s\}\}/g, scheduled);
}

/** The raw HTTP/1.1 request text for a spec (`scheduledMs`: the open loop's start instant). */
export function renderRequest(spec: RequestSpec, seq = 0, scheduledMs?: number): string {
  const path = fill(spec.path, seq, scheduledMs);
  let head = `${spec.method} ${path} HTTP/1.1\r\nHost: ${spec.host}\r\nUser-Agent: team-chat-bench\r\n`;
  if (spec.authorization) head += `Authorization: ${spec.authorization}\r\n`;
  if (spec.body === undefined) {
    return spec.method === 'GET' || spec.method === 'HEAD' ? head + '\r\n' : head + 'Content-Length: 0\r\n\r\n';
  }
  const body = fill(spec.body, seq, scheduledMs);
  return (
    head +
    `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n` +
    body
  );
}

/** A function producing request bytes; constant specs are rendered once. */
export function requestFactory(spec: RequestSpec): (seq: number, scheduledMs?: number) => string | Buffer {
  if (hasPlaceholders(spec)) return (seq, scheduledMs) => renderRequest(spec, seq, scheduledMs);
  const fixed = Buffer.from(renderRequest(spec));
  return () => fixed;
}

/** Content marker the send workloads embed; receivers parse it back. */
export const MARKER_PATTERN = /bench:(\w+):(\d+):(\d+)/;

export function markerContent(phase: string): string {
  return `bench:${phase}:{{t}}:{{seq}}`;
}

/**
 * The fanout workload's marker: phase, send instant, scheduled start, sequence number. Words
 * between spaces, since a number between colons is an emoji name (":100:").
 */
export const FANOUT_MARKER = /fanout-bench (\w+) (\d+) (\d+) (\d+)/;

export function fanoutMarkerContent(phase: string): string {
  return `fanout-bench ${phase} {{t}} {{s}} {{seq}}`;
}
