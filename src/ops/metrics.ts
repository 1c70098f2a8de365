// Prometheus metrics: request counts and latency per route, active realm actors, queues.
import client from 'prom-client';

export class Metrics {
  readonly registry = new client.Registry();
  readonly requests = new client.Counter({
    name: 'chat_http_requests_total',
    help: 'API requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly latency = new client.Histogram({
    name: 'chat_http_request_duration_seconds',
    help: 'API request latency by route (long-polls included)',
    labelNames: ['route', 'method'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers: [this.registry],
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose value is read when metrics are scraped. */
  gauge(name: string, help: string, read: () => number | Record<string, number>, label = 'key'): void {
    new client.Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      collect() {
        const v = read();
        if (typeof v === 'number') this.set(v);
        else for (const [k, n] of Object.entries(v)) this.set({ [label]: k }, n);
      },
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
