// Channel messages at a fixed arrival rate (open model) into the channels of the "send"
// realm, while every subscriber long-polls its event queue. Measures send latency and
// send→receive latency (the send instant travels in the content; receivers subtract).
//
//   k6 run -e BENCH_CONFIG=$PWD/bench/results/k6-config.json -e RATE=200 bench/k6/send.js

import { check } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';
import { envInt, envStr, eventsUrl, json, loadConfig, markedContent, params, register, requireRealm, takeEvents } from './lib.js';

const config = loadConfig();
const realm = requireRealm(config.realms.send, 'send');

const RATE = envInt('RATE', 50);
const DURATION = envStr('DURATION', '1m');
const SUBSCRIBERS = Math.min(envInt('SUBSCRIBERS', realm.users.length), realm.users.length);
const WARMUP_SECONDS = envInt('WARMUP_SECONDS', 5);
const SEND_P99_MS = envInt('SEND_P99_MS', 250);
const RECEIVE_P99_MS = envInt('RECEIVE_P99_MS', 500);

const sendToReceive = new Trend('send_to_receive', true);
const messageEvents = new Counter('message_events');

/** @param {string} d  a k6 duration like "90s", "2m", "1h" */
function seconds(d) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(d);
  if (!m) throw new Error(`unsupported duration "${d}"`);
  return parseFloat(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[/** @type {'ms'|'s'|'m'|'h'} */ (m[2])];
}

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: {
    subscribers: {
      executor: 'per-vu-iterations',
      exec: 'subscriber',
      vus: SUBSCRIBERS,
      iterations: 1,
      maxDuration: `${Math.ceil(seconds(DURATION) + WARMUP_SECONDS + 30)}s`,
      gracefulStop: '5s',
    },
    senders: {
      executor: 'constant-arrival-rate',
      exec: 'send',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      startTime: `${WARMUP_SECONDS}s`,
      preAllocatedVUs: Math.max(10, Math.ceil(RATE / 10)),
      maxVUs: Math.max(50, RATE * 2),
    },
  },
  thresholds: {
    'http_req_failed{scenario:senders}': ['rate<0.01'],
    'http_req_duration{scenario:senders}': [`p(99)<${SEND_P99_MS}`],
    'checks{scenario:senders}': ['rate>0.99'],
    send_to_receive: [`p(99)<${RECEIVE_P99_MS}`],
    message_events: ['count>0'],
    dropped_iterations: [`count<${Math.max(1, Math.ceil(RATE * 0.01 * seconds(DURATION)))}`],
  },
};

/** One subscriber per VU: register once, then long-poll until the senders are done. */
export function subscriber() {
  const slot = exec.scenario.iterationInTest;
  const user = realm.users[slot % realm.users.length];
  const queue = register(config.baseUrl, realm, user, ['message']);
  if (!check(queue, { 'queue registered': (q) => q !== null }) || !queue) return;
  const deadline = exec.scenario.startTime + (WARMUP_SECONDS + seconds(DURATION) + 10) * 1000;
  while (Date.now() < deadline) {
    const res = http.get(eventsUrl(config.baseUrl, queue), params(realm, user, 'events', { timeout: '120s' }));
    const receivedAt = Date.now();
    if (!check(res, { 'events 200': (r) => r.status === 200 })) break;
    const got = takeEvents(json(res), queue, receivedAt);
    for (const ms of got.latencies) sendToReceive.add(ms);
    messageEvents.add(got.latencies.length);
  }
}

/** One channel message per iteration, from a random subscriber to a random bench channel. */
export function send() {
  const user = realm.users[Math.floor(Math.random() * SUBSCRIBERS)];
  const channel = realm.channels[Math.floor(Math.random() * realm.channels.length)];
  const res = http.post(
    `${config.baseUrl}/api/v1/messages`,
    { type: 'channel', to: channel.name, topic: 'k6 load', content: markedContent() },
    params(realm, user, 'messages_send'),
  );
  check(res, { 'message sent': (r) => r.status === 200 && typeof json(r)?.id === 'number' });
}
