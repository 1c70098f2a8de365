// POST /register storms on a large realm (setup.mjs seeds "register" with 10,000 users
// and 1,000 channels by default): registers at a fixed arrival rate, full initial state
// unless EVENT_TYPES narrows it, each queue deleted right after.
//
//   k6 run -e BENCH_CONFIG=$PWD/bench/results/k6-config.json -e RATE=20 bench/k6/register.js

import { check } from 'k6';
import http from 'k6/http';
import { Trend } from 'k6/metrics';
import { envInt, envStr, json, loadConfig, params, pick, requireRealm } from './lib.js';

const config = loadConfig();
const realm = requireRealm(config.realms.register, 'register');

const RATE = envInt('RATE', 10);
const DURATION = envStr('DURATION', '1m');
const EVENT_TYPES = __ENV.EVENT_TYPES || ''; // JSON list, e.g. ["message"]; empty = full state
// Zulip's own guidance: register on orgs of 10,000s of users should stay under a second.
const REGISTER_P95_MS = envInt('REGISTER_P95_MS', 1000);

const bodyKb = new Trend('register_body_kb');

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    storm: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: Math.max(10, RATE * 2),
      maxVUs: Math.max(50, RATE * 10),
    },
  },
  thresholds: {
    'http_req_duration{name:register}': [`p(95)<${REGISTER_P95_MS}`],
    'http_req_failed{name:register}': ['rate<0.01'],
    'checks{check:registered}': ['rate>0.99'],
    dropped_iterations: [`count<${Math.max(1, RATE)}`],
  },
};

export default function () {
  const user = pick(realm.users);
  const body = EVENT_TYPES ? { event_types: EVENT_TYPES } : null;
  const res = http.post(`${config.baseUrl}/api/v1/register`, body, params(realm, user, 'register', { timeout: '60s' }));
  const data = res.status === 200 ? json(res) : null;
  check(data, { registered: (d) => d !== null && typeof d.queue_id === 'string' });
  if (typeof res.body === 'string') bodyKb.add(res.body.length / 1024);
  if (data && data.queue_id) {
    http.del(`${config.baseUrl}/api/v1/events?queue_id=${encodeURIComponent(data.queue_id)}`, null, params(realm, user, 'events_delete'));
  }
}
