// Many parked long-polls held through heartbeats. Each VU registers POLLS_PER_VU event
// queues in the "idle" realm and keeps one GET /events parked on each of them at once
// (http.asyncRequest), re-polling as soon as one returns, for HOLD. Nothing is sent, so
// every answer should be a heartbeat, arriving within HEARTBEAT_MAX_SECONDS + 2 s.
//
//   k6 run -e BENCH_CONFIG=$PWD/bench/results/k6-config.json -e VUS=20 -e POLLS_PER_VU=500 bench/k6/idle.js

import { check } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Rate, Trend } from 'k6/metrics';
import { envInt, envStr, eventsUrl, json, loadConfig, params, requireRealm, takeEvents } from './lib.js';

const config = loadConfig();
const realm = requireRealm(config.realms.idle, 'idle');

const VUS = envInt('VUS', 10);
const POLLS_PER_VU = envInt('POLLS_PER_VU', 100);
const HOLD = envStr('HOLD', '3m');
// Zulip sends heartbeats 45–55 s into an idle poll; a server started with
// HEARTBEAT_SECONDS=h uses at most h + min(10, h/5).
const HEARTBEAT_MAX_SECONDS = envInt('HEARTBEAT_MAX_SECONDS', 55);
const ON_TIME_MS = (HEARTBEAT_MAX_SECONDS + 2) * 1000;

const heartbeatWait = new Trend('heartbeat_wait', true);
const heartbeatOnTime = new Rate('heartbeat_on_time');
const parkedPolls = new Counter('parked_polls');
const unexpectedEvents = new Counter('unexpected_events');

/** @param {string} d */
function seconds(d) {
  const m = /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(d);
  if (!m) throw new Error(`unsupported duration "${d}"`);
  return parseFloat(m[1]) * { s: 1, m: 60, h: 3600 }[/** @type {'s'|'m'|'h'} */ (m[2])];
}

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    parked: {
      executor: 'per-vu-iterations',
      vus: VUS,
      iterations: 1,
      // Registering takes a while on big runs; then HOLD, then the last heartbeats.
      maxDuration: `${Math.ceil(seconds(HOLD) + HEARTBEAT_MAX_SECONDS + 120)}s`,
    },
  },
  thresholds: {
    heartbeat_on_time: ['rate>0.999'],
    heartbeat_wait: [`p(99)<${ON_TIME_MS}`],
    'http_req_failed{name:events}': ['rate<0.001'],
    'http_req_failed{name:register}': ['rate<0.001'],
    unexpected_events: ['count==0'],
  },
};

/**
 * @param {import('./lib.js').User} user
 * @param {{ queueId: string, lastEventId: number }} queue
 * @param {number} deadline
 */
async function holdPoll(user, queue, deadline) {
  while (Date.now() < deadline) {
    const sentAt = Date.now();
    const res = await http.asyncRequest('GET', eventsUrl(config.baseUrl, queue), null, params(realm, user, 'events', { timeout: `${HEARTBEAT_MAX_SECONDS + 60}s` }));
    const waited = Date.now() - sentAt;
    if (!check(res, { 'events 200': (r) => r.status === 200 })) return;
    const got = takeEvents(json(res), queue, Date.now());
    if (got.heartbeat) {
      heartbeatWait.add(waited);
      heartbeatOnTime.add(waited <= ON_TIME_MS);
    } else {
      unexpectedEvents.add(got.count);
    }
  }
}

export default async function () {
  const vu = exec.vu.idInTest;
  /** @type {Promise<void>[]} */
  const polls = [];
  const queues = [];
  // Register everything first so all polls park at about the same time.
  for (let i = 0; i < POLLS_PER_VU; i++) {
    const user = realm.users[(vu * POLLS_PER_VU + i) % realm.users.length];
    const res = await http.asyncRequest('POST', `${config.baseUrl}/api/v1/register`, { event_types: JSON.stringify(['message']) }, params(realm, user, 'register'));
    const data = res.status === 200 ? json(res) : null;
    if (check(data, { 'queue registered': (d) => d !== null && typeof d.queue_id === 'string' })) {
      queues.push({ user, queue: { queueId: data.queue_id, lastEventId: data.last_event_id ?? -1 } });
    }
  }
  const deadline = Date.now() + seconds(HOLD) * 1000;
  for (const { user, queue } of queues) polls.push(holdPoll(user, queue, deadline));
  parkedPolls.add(queues.length);
  await Promise.all(polls);
}
