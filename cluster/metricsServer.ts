// A worker's own small HTTP endpoint (workers serve no API): GET /health and GET /metrics.
// The metrics show which realms this worker holds (one series per realm, value = lease
// epoch), besides the process metrics.
import http from 'node:http';
import client from 'prom-client';
import type { Metrics } from '../src/http/metrics.js';
import type { Logger } from '../src/log.js';

export interface HeldRealm {
  subdomain: string;
  realmId: number;
  epoch: number;
}

export function registerClusterGauges(metrics: Metrics, held: () => HeldRealm[], workerId: string): void {
  new client.Gauge({
    name: 'chat_cluster_realm_held',
    help: 'Realms this worker holds the lease of (value: lease epoch)',
    labelNames: ['realm', 'worker'] as const,
    registers: [metrics.registry],
    collect() {
      // Realms that moved away must disappear, not keep their last value.
      this.reset();
      for (const r of held()) this.set({ realm: r.subdomain, worker: workerId }, r.epoch);
    },
  });
}

export function startMetricsServer(
  port: number,
  host: string,
  metrics: Metrics,
  health: () => { ok: boolean; [k: string]: unknown },
  log: Logger,
): Promise<{ port: number; close(): void }> {
  const server = http.createServer((req, res) => {
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(body);
    };
    if (req.method === 'GET' && req.url === '/health') {
      const h = health();
      reply(h.ok ? 200 : 503, 'application/json', JSON.stringify({ result: h.ok ? 'success' : 'error', msg: '', ...h }) + '\n');
    } else if (req.method === 'GET' && req.url === '/metrics') {
      metrics.text().then(
        (text) => reply(200, 'text/plain; version=0.0.4', text),
        (err: unknown) => {
          log.error({ err }, 'metrics failed');
          reply(500, 'application/json', JSON.stringify({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' }) + '\n');
        },
      );
    } else {
      reply(404, 'application/json', JSON.stringify({ result: 'error', msg: 'Not found', code: 'BAD_REQUEST' }) + '\n');
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve({ port: (server.address() as { port: number }).port, close: () => server.close() });
    });
  });
}
