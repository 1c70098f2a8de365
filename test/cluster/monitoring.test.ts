// The operators' dashboard and alerting rules (cluster/monitoring/) refer only to metrics the
// server exports: every metric name in them is found on a real scrape of a one-process server
// and of a cluster's front and worker. The counters behind them move when messages are sent,
// delivered and rendered.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, type ClusterClient } from '../helpers/cluster.js';
import { newRealm, port, type Client } from '../helpers/client.js';

const DASHBOARD = 'cluster/monitoring/grafana-dashboard.json';
const ALERTS = 'cluster/monitoring/alerts.yml';
/** Names the server exports; PromQL functions and Prometheus's own series (`up`) do not match. */
const METRIC_NAME = /\b(?:chat|process|nodejs)_[a-z0-9_]+\b/g;

interface Panel {
  id: number;
  type: string;
  title: string;
  targets?: { expr: string }[];
}

/** Metric families of a scrape, with the series names a histogram or summary adds. */
function families(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    out.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) out.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) out.add(name + s);
  }
  return out;
}

/** The sum of a metric's samples (every label set). */
function total(text: string, name: string): number {
  let sum = 0;
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))) sum += Number(m[1]);
  return sum;
}

function dashboardExprs(): string[] {
  const dash = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[]; templating: { list: { definition?: string }[] } };
  return [
    ...dash.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...dash.templating.list.flatMap((v) => (v.definition ? [v.definition] : [])),
  ];
}

/** The rules of alerts.yml, each as its lines (every expr is written on one line). */
function alertRules(): { alert: string; expr: string; text: string }[] {
  const yml = readFileSync(ALERTS, 'utf8');
  return yml
    .split(/^\s*- alert: /m)
    .slice(1)
    .map((chunk) => ({ alert: chunk.split('\n')[0]!.trim(), expr: /^\s*expr: (.+)$/m.exec(chunk)?.[1] ?? '', text: chunk }));
}

const referenced = (exprs: string[]) => new Set(exprs.flatMap((e) => e.match(METRIC_NAME) ?? []));

let cluster: TestCluster;
let clusterOwner: ClusterClient;
let owner: Client;

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1'] });
  clusterOwner = await cluster.newRealm('mon');
  ({ owner } = await newRealm('mon'));
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

async function scrapeOneProcess(): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port()}/metrics`)).text();
}

async function scrapeFront(): Promise<string> {
  return (await fetch(`http://127.0.0.1:${cluster.fronts[0]!.port}/metrics`)).text();
}

describe('dashboard and alerting rules', () => {
  it('are well formed: panels with unique ids and queries, rules with an expression, a severity and a summary', () => {
    const dash = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { uid: string; panels: Panel[] };
    expect(dash.uid).toBe('team-chat-server');
    const ids = dash.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const graphs = dash.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).toBeGreaterThan(20);
    for (const p of graphs) {
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.expr.trim(), p.title).not.toBe('');
    }
    const rules = alertRules();
    expect(rules.length).toBeGreaterThan(10);
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const r of rules) {
      expect(r.expr, r.alert).not.toBe('');
      expect(r.text, r.alert).toMatch(/^\s*severity: (page|ticket)$/m);
      expect(r.text, r.alert).toMatch(/^\s*summary: ".+"$/m);
      // Balanced parentheses and braces: the usual slip when editing one-line PromQL.
      for (const [open, close] of [['(', ')'], ['{', '}'], ['[', ']']] as const) {
        expect(r.expr.split(open).length, `${r.alert} ${open}${close}`).toBe(r.expr.split(close).length);
      }
    }
  });

  it('refer only to metrics a one-process server and a cluster front and worker export', async () => {
    // Traffic first, so that every labelled family has series.
    await owner.get('/users/me');
    await clusterOwner.get('/users/me');
    const scrapes = [await scrapeOneProcess(), await scrapeFront(), await cluster.workerMetrics(cluster.worker('w1'))];
    const exported = new Set(scrapes.flatMap((s) => [...families(s)]));
    const names = referenced([...dashboardExprs(), ...alertRules().map((r) => r.expr)]);
    // What the operators' view is about is covered: requests, sends, deliveries, polls, queues,
    // placement and moves, render pool, jobs, processes.
    for (const family of [
      'chat_http_requests_total', 'chat_http_request_duration_seconds_bucket', 'chat_messages_sent_total', 'chat_send_batches_total',
      'chat_events_delivered_total', 'chat_event_polls_parked', 'chat_event_queues', 'chat_realm_actors_active', 'chat_cluster_realm_held',
      'chat_cluster_realm_handoffs_total', 'chat_cluster_workers_live', 'chat_render_messages_total', 'chat_job_runs_total',
      'process_open_fds', 'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(names, family).toContain(family);
    }
    const missing = [...names].filter((n) => !exported.has(n));
    expect(missing).toEqual([]);
  });
});

describe('the counters behind them', () => {
  it('count sends, their deliveries to event queues, renders and group-commit statements on the worker that holds the realm', async () => {
    const w1 = cluster.worker('w1');
    const created = await clusterOwner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'metrics' }]) });
    expect(created.status).toBe(200);
    const reg = await clusterOwner.post('/register', { event_types: JSON.stringify(['message']) });
    expect(reg.status).toBe(200);
    const before = await cluster.workerMetrics(w1);
    const sent = await clusterOwner.post('/messages', { type: 'channel', to: 'metrics', topic: 'metrics', content: 'counted **once**' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const events = await clusterOwner.get('/events', { queue_id: reg.body.queue_id as string, last_event_id: -1, dont_block: 'true' });
    expect((events.body.events as { type: string }[]).some((e) => e.type === 'message')).toBe(true);
    const after = await cluster.workerMetrics(w1);
    const delta = (name: string) => total(after, name) - total(before, name);
    expect(delta('chat_messages_sent_total')).toBe(1);
    expect(delta('chat_send_batches_total')).toBe(1);
    expect(delta('chat_send_commit_seconds_total')).toBeGreaterThan(0);
    expect(delta('chat_events_delivered_total')).toBe(1); // the owner's one queue
    expect(delta('chat_render_messages_total')).toBeGreaterThanOrEqual(1);
    expect(delta('chat_sends_failed_total')).toBe(0);
    expect(total(after, 'chat_cluster_realm_activations_total')).toBeGreaterThanOrEqual(1);
    expect(total(after, 'chat_event_queues')).toBeGreaterThanOrEqual(1);
    expect(total(after, 'chat_event_polls_parked')).toBe(0);
  });

  it('count a bad send as no send: a rejected message changes no counter', async () => {
    const w1 = cluster.worker('w1');
    const before = await cluster.workerMetrics(w1);
    const bad = await clusterOwner.post('/messages', { type: 'channel', to: 'no such channel', topic: 'x', content: 'lost' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ result: 'error', code: 'STREAM_DOES_NOT_EXIST' });
    const after = await cluster.workerMetrics(w1);
    for (const name of ['chat_messages_sent_total', 'chat_send_batches_total', 'chat_sends_failed_total', 'chat_events_delivered_total']) {
      expect(total(after, name) - total(before, name), name).toBe(0);
    }
  });
});
