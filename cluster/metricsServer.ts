// A worker's own small HTTP endpoint (workers serve no API): GET /health and GET /metrics.
// The metrics show which realms this worker holds (one series per realm, value = lease
// epoch), besides the process metrics.
import http from 'node:http';
import client from 'prom-client';
import type { Metrics } from '../src/http/metrics.js';
import type { ApiResponse } from '../src/http/contract.js';
import { errorResponse, internalErrorResponse, successBody } from '../src/http/envelope.js';
import { ApiError } from '../src/model/errors.js';
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
    const replyJson = (r: ApiResponse) => reply(r.status, 'application/json', JSON.stringify(r.body) + '\n');
    if (req.method === 'GET' && req.url === '/health') {
      const h = health();
      if (h.ok) replyJson({ status: 200, body: successBody(h) });
      else {
        const r = errorResponse(new ApiError('SERVER_NOT_READY', 'Worker is leaving the cluster', 503));
        replyJson({ ...r, body: { ...r.body, ...h } });
      }
    } else if (req.method === 'GET' && req.url === '/metrics') {
      metrics.text().then(
        (text) => reply(200, 'text/plain; version=0.0.4', text),
        (err: unknown) => {
          log.error({ err }, 'metrics failed');
          replyJson(internalErrorResponse());
        },
      );
    } else {
      replyJson(errorResponse(new ApiError('BAD_REQUEST', 'Not found', 404)));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve({ port: (server.address() as { port: number }).port, close: () => server.close() });
    });
  });
}
