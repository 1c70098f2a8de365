/* global open */
// Shared helpers of the k6 scenarios: the seeded deployment description, request
// parameters for Zulip's API (HTTP Basic, form bodies, Host header selecting the realm),
// and the send→receive marker.

import encoding from 'k6/encoding';
import http from 'k6/http';

/**
 * @typedef {{ id: number, email: string, apiKey: string }} User
 * @typedef {{ id?: number, name: string }} Channel
 * @typedef {{ host: string, subdomain?: string, userCount?: number, users: User[], channels: Channel[] }} Realm
 * @typedef {{ baseUrl: string, realms: { send?: Realm, idle?: Realm, register?: Realm, mixed?: Realm[] } }} BenchConfig
 */

/**
 * Reads the deployment description written by setup.mjs (init context only): BENCH_CONFIG
 * names the JSON file. Without it, one user given by BASE_URL, EMAIL and API_KEY (and
 * optionally HOST and CHANNEL) plays every part.
 * @returns {BenchConfig}
 */
export function loadConfig() {
  if (__ENV.BENCH_CONFIG) {
    /** @type {BenchConfig} */
    const config = JSON.parse(open(__ENV.BENCH_CONFIG));
    if (__ENV.BASE_URL) config.baseUrl = __ENV.BASE_URL;
    return config;
  }
  if (!__ENV.BASE_URL || !__ENV.EMAIL || !__ENV.API_KEY) {
    throw new Error('set BENCH_CONFIG (written by bench/k6/setup.mjs), or BASE_URL, EMAIL and API_KEY');
  }
  const baseUrl = __ENV.BASE_URL.replace(/\/+$/, '');
  /** @type {Realm} */
  const realm = {
    host: __ENV.HOST || baseUrl.replace(/^https?:\/\//, ''),
    users: [{ id: 0, email: __ENV.EMAIL, apiKey: __ENV.API_KEY }],
    channels: [{ name: __ENV.CHANNEL || 'bench-0' }],
  };
  return { baseUrl, realms: { send: realm, idle: realm, register: realm, mixed: [realm] } };
}

/**
 * @template T
 * @param {T | undefined} realm
 * @param {string} name
 * @returns {T}
 */
export function requireRealm(realm, name) {
  if (!realm || (Array.isArray(realm) && realm.length === 0)) throw new Error(`the config has no "${name}" realm; run setup.mjs with it`);
  return realm;
}

/**
 * @param {string} name
 * @param {number} n
 */
export function envInt(name, n) {
  const v = __ENV[name];
  return v === undefined || v === '' ? n : parseInt(v, 10);
}

/**
 * @param {string} name
 * @param {string} fallback
 */
export function envStr(name, fallback) {
  const v = __ENV[name];
  return v === undefined || v === '' ? fallback : v;
}

/**
 * Request parameters for `user` in `realm`.
 * @param {Realm} realm
 * @param {User} user
 * @param {string} name   metric name tag (keeps queue ids and message ids out of the URL tag)
 * @param {Partial<import('k6/http').Params>} [extra]
 * @returns {import('k6/http').Params}
 */
export function params(realm, user, name, extra) {
  return Object.assign(
    {
      headers: {
        Host: realm.host,
        Authorization: `Basic ${encoding.b64encode(`${user.email}:${user.apiKey}`)}`,
      },
      tags: { name },
    },
    extra || {},
  );
}

/**
 * @template T
 * @param {T[]} list
 * @returns {T}
 */
export function pick(list) {
  return list[Math.floor(Math.random() * list.length)];
}

/**
 * @param {import('k6/http').RefinedResponse<import('k6/http').ResponseType | undefined>} res
 * @returns {any}
 */
export function json(res) {
  try {
    return typeof res.body === 'string' ? JSON.parse(res.body) : null;
  } catch {
    return null;
  }
}

/**
 * One field of a JSON response, read by k6 itself (Go, gjson path syntax) without building
 * the whole body as JavaScript objects: what a register of a large realm needs, whose body
 * is hundreds of KB. Undefined when the body is not JSON or lacks the field.
 * @param {import('k6/http').RefinedResponse<import('k6/http').ResponseType | undefined>} res
 * @param {string} path
 * @returns {any}
 */
export function jsonField(res, path) {
  try {
    const value = res.json(path);
    return value === null ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * Registers an event queue.
 * @param {string} baseUrl
 * @param {Realm} realm
 * @param {User} user
 * @param {string[] | null} eventTypes  null for everything (full initial state)
 * @returns {{ queueId: string, lastEventId: number } | null}
 */
export function register(baseUrl, realm, user, eventTypes) {
  const body = eventTypes ? { event_types: JSON.stringify(eventTypes) } : null;
  const res = http.post(`${baseUrl}/api/v1/register`, body, params(realm, user, 'register'));
  const queueId = res.status === 200 ? jsonField(res, 'queue_id') : undefined;
  if (typeof queueId !== 'string') return null;
  const lastEventId = jsonField(res, 'last_event_id');
  return { queueId, lastEventId: typeof lastEventId === 'number' ? lastEventId : -1 };
}

/**
 * The URL of one long-poll.
 * @param {string} baseUrl
 * @param {{ queueId: string, lastEventId: number }} queue
 */
export function eventsUrl(baseUrl, queue) {
  return `${baseUrl}/api/v1/events?queue_id=${encodeURIComponent(queue.queueId)}&last_event_id=${queue.lastEventId}`;
}

/** Message content carrying the send instant, for send→receive timing on receipt. */
export function markedContent() {
  return `k6:${Date.now()}:${Math.random().toString(36).slice(2, 8)} load test message`;
}

const MARKER = /k6:(\d{13}):/;

/**
 * Handles one GET /events answer: advances last_event_id and returns the send→receive
 * times (ms) of marked messages and whether a heartbeat came.
 * @param {any} body
 * @param {{ queueId: string, lastEventId: number }} queue
 * @param {number} receivedAt
 */
export function takeEvents(body, queue, receivedAt) {
  /** @type {number[]} */
  const latencies = [];
  let heartbeat = false;
  const events = (body && body.events) || [];
  for (const event of events) {
    if (event.id > queue.lastEventId) queue.lastEventId = event.id;
    if (event.type === 'heartbeat') heartbeat = true;
    if (event.type === 'message' && event.message && typeof event.message.content === 'string') {
      const m = MARKER.exec(event.message.content);
      if (m) latencies.push(receivedAt - parseInt(m[1], 10));
    }
  }
  return { latencies, heartbeat, count: events.length };
}
