// A realistic mix across many realms, for clusters: clients holding long-polls, plus
// presence pings, channel sends, message fetches, reactions, typing notifications and the
// occasional full register, each at its own arrival rate. The default rates follow the
// shape of Zulip's production mix (presence and long-polls dominate; sends are rare).
//
//   k6 run -e BENCH_CONFIG=$PWD/bench/results/k6-config.json -e SCALE=4 bench/k6/mixed.js

import { check, group } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { envInt, envStr, eventsUrl, json, jsonField, loadConfig, markedContent, params, pick, register, requireRealm, takeEvents } from './lib.js';

const config = loadConfig();
const realms = requireRealm(config.realms.mixed, 'mixed');

const DURATION = envStr('DURATION', '5m');
// SCALE multiplies every rate and the number of polling clients.
const SCALE = parseFloat(envStr('SCALE', '1'));
const POLLERS = Math.round(envInt('POLLERS', 200) * SCALE);
/** @param {string} name @param {number} perSecond */
const rate = (name, perSecond) => Math.max(1, Math.round(envInt(name, perSecond) * SCALE));

const sendToReceive = new Trend('send_to_receive', true);
const messageEvents = new Counter('message_events');

/** @param {string} d */
function seconds(d) {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(d);
  if (!m) throw new Error(`unsupported duration "${d}"`);
  return parseFloat(m[1]) * { s: 1, m: 60, h: 3600 }[/** @type {'s'|'m'|'h'} */ (m[2])];
}

/**
 * @param {string} exec
 * @param {number} perSecond
 * @returns {import('k6/options').ConstantArrivalRateScenario}
 */
function arrival(exec, perSecond) {
  return {
    executor: 'constant-arrival-rate',
    exec,
    rate: perSecond,
    timeUnit: '1s',
    duration: DURATION,
    startTime: '10s', // let the pollers register first
    preAllocatedVUs: Math.max(5, Math.ceil(perSecond / 5)),
    maxVUs: Math.max(20, perSecond * 5),
  };
}

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    pollers: {
      executor: 'per-vu-iterations',
      exec: 'poller',
      vus: POLLERS,
      iterations: 1,
      maxDuration: `${Math.ceil(seconds(DURATION) + 80)}s`,
      gracefulStop: '5s',
    },
    presence: arrival('presence', rate('PRESENCE_RATE', 50)),
    send: arrival('sendMessage', rate('SEND_RATE', 5)),
    fetch: arrival('fetchMessages', rate('FETCH_RATE', 5)),
    react: arrival('react', rate('REACT_RATE', 2)),
    typing: arrival('typing', rate('TYPING_RATE', 10)),
    register: arrival('registerFull', rate('REGISTER_RATE', 1)),
  },
  thresholds: {
    http_req_failed: ['rate<0.01'],
    'http_req_duration{scenario:presence}': ['p(95)<100'],
    'http_req_duration{scenario:send}': ['p(95)<200', 'p(99)<500'],
    'http_req_duration{scenario:fetch}': ['p(95)<300'],
    'http_req_duration{scenario:react}': ['p(95)<200'],
    'http_req_duration{scenario:typing}': ['p(95)<50'],
    'http_req_duration{scenario:register}': ['p(95)<1000'],
    send_to_receive: ['p(99)<1000'],
    checks: ['rate>0.99'],
  },
};

/** @returns {{ realm: import('./lib.js').Realm, user: import('./lib.js').User }} */
function someone() {
  const realm = pick(realms);
  return { realm, user: pick(realm.users) };
}

/** A client: one queue for messages, reactions and typing, long-polled until the end. */
export function poller() {
  const slot = exec.scenario.iterationInTest;
  const realm = realms[slot % realms.length];
  const user = realm.users[Math.floor(slot / realms.length) % realm.users.length];
  const queue = register(config.baseUrl, realm, user, ['message', 'reaction', 'typing', 'update_message_flags']);
  if (!check(queue, { 'queue registered': (q) => q !== null }) || !queue) return;
  const deadline = exec.scenario.startTime + (seconds(DURATION) + 15) * 1000;
  while (Date.now() < deadline) {
    const res = http.get(eventsUrl(config.baseUrl, queue), params(realm, user, 'events', { timeout: '120s' }));
    const receivedAt = Date.now();
    if (!check(res, { 'events 200': (r) => r.status === 200 })) return;
    const got = takeEvents(json(res), queue, receivedAt);
    for (const ms of got.latencies) sendToReceive.add(ms);
    messageEvents.add(got.latencies.length);
  }
}

export function presence() {
  const { realm, user } = someone();
  const res = http.post(`${config.baseUrl}/api/v1/users/me/presence`, { status: 'active', new_user_input: 'true' }, params(realm, user, 'presence'));
  check(res, { 'presence 200': (r) => r.status === 200 });
}

export function sendMessage() {
  const { realm, user } = someone();
  const channel = pick(realm.channels);
  const res = http.post(
    `${config.baseUrl}/api/v1/messages`,
    { type: 'channel', to: channel.name, topic: `topic ${Math.floor(Math.random() * 5)}`, content: markedContent() },
    params(realm, user, 'messages_send'),
  );
  check(res, { 'message sent': (r) => r.status === 200 });
}

/**
 * The newest messages of a channel, as a client opening it does.
 * @param {import('./lib.js').Realm} realm
 * @param {import('./lib.js').User} user
 * @param {import('./lib.js').Channel} channel
 * @returns {number[]} message ids
 */
function newest(realm, user, channel) {
  const narrow = JSON.stringify([{ operator: 'channel', operand: channel.name }]);
  const url = `${config.baseUrl}/api/v1/messages?anchor=newest&num_before=20&num_after=0&narrow=${encodeURIComponent(narrow)}`;
  const res = http.get(url, params(realm, user, 'messages_fetch'));
  check(res, { 'messages 200': (r) => r.status === 200 });
  const data = json(res);
  return data && Array.isArray(data.messages) ? data.messages.map((/** @type {{ id: number }} */ m) => m.id) : [];
}

export function fetchMessages() {
  const { realm, user } = someone();
  newest(realm, user, pick(realm.channels));
}

/** Reacts to a recent message; if this user already did, takes the reaction back. */
export function react() {
  const { realm, user } = someone();
  group('react', () => {
    const ids = newest(realm, user, pick(realm.channels));
    if (ids.length === 0) return;
    const id = pick(ids);
    const url = `${config.baseUrl}/api/v1/messages/${id}/reactions`;
    const res = http.post(url, { emoji_name: 'smile' }, params(realm, user, 'reaction_add', { responseCallback: http.expectedStatuses(200, 400) }));
    if (res.status === 400 && json(res)?.code === 'REACTION_ALREADY_EXISTS') {
      const del = http.del(`${url}?emoji_name=smile`, null, params(realm, user, 'reaction_remove'));
      check(del, { 'reaction removed': (r) => r.status === 200 });
    } else {
      check(res, { 'reaction added': (r) => r.status === 200 });
    }
  });
}

export function typing() {
  const { realm, user } = someone();
  const channel = pick(realm.channels);
  if (channel.id === undefined) return; // typing needs the channel id
  const res = http.post(
    `${config.baseUrl}/api/v1/typing`,
    { op: 'start', type: 'channel', stream_id: String(channel.id), topic: 'topic 0' },
    params(realm, user, 'typing'),
  );
  check(res, { 'typing 200': (r) => r.status === 200 });
}

/** A client starting up: full initial state, then the queue is given back. */
export function registerFull() {
  const { realm, user } = someone();
  const res = http.post(`${config.baseUrl}/api/v1/register`, null, params(realm, user, 'register', { timeout: '60s' }));
  // Only the queue id: parsing the whole initial state in k6's JavaScript would starve the generator.
  const queueId = res.status === 200 ? jsonField(res, 'queue_id') : undefined;
  check(queueId, { 'register 200': (q) => typeof q === 'string' });
  if (typeof queueId === 'string') {
    http.del(`${config.baseUrl}/api/v1/events?queue_id=${encodeURIComponent(queueId)}`, null, params(realm, user, 'events_delete'));
  }
}
