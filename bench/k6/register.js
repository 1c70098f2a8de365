// POST /register storms on a large realm (setup.mjs seeds "register" with 10,000 users
// and 1,000 channels by default): registers at a fixed arrival rate, full initial state
// unless EVENT_TYPES narrows it, each queue deleted right after. Only the queue id is read
// from the body (by k6 itself, res.json('queue_id')): parsing the whole ~0.5 MB initial
// state in k6's JavaScript on every iteration would make the generator the bottleneck.
//
//   k6 run -e BENCH_CONFIG=$PWD/bench/results/k6-config.json -e RATE=20 bench/k6/register.js

import { check } from 'k6';
import http from 'k6/http';
import { Trend } from 'k6/metrics';
import { envInt, envStr, jsonField, loadConfig, params, pick, requireRealm } from './lib.js';

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
  const queueId = res.status === 200 ? jsonField(res, 'queue_id') : undefined;
  check(queueId, { registered: (q) => typeof q === 'string' });
  // The size from the header when the server sends one, so the body is not measured in JavaScript.
  const length = Number(res.headers['Content-Length']);
  if (Number.isFinite(length) && length > 0) bodyKb.add(length / 1024);
  else if (typeof res.body === 'string') bodyKb.add(res.body.length / 1024);
  if (typeof queueId === 'string') {
    http.del(`${config.baseUrl}/api/v1/events?queue_id=${encodeURIComponent(queueId)}`, null, params(realm, user, 'events_delete'));
  }
}
