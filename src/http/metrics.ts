// Prometheus metrics: request counts and latency per route, active realm actors, queues.
import client from 'prom-client';

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60];

interface RouteLatency {
  route: string;
  method: string;
  /** Requests per bucket (not cumulative); the last one is above the largest bound. */
  buckets: number[];
  sum: number;
  count: number;
  /** Requests by status. */
  statuses: Map<number, number>;
}

interface MetricValue {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/**
 * A metric the registry renders from `get()`. Request counts and latencies are kept in plain
 * maps by route and method (two lookups and a few additions per request, no key to build) and
 * turned into Prometheus samples only when scraped.
 */
function scrapedMetric(registry: client.Registry, name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: () => ({ name, help, type, aggregator: 'sum', values: values() }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as client.Metric);
}

export class Metrics {
  readonly registry = new client.Registry();
  /** Route → method → its latencies and counts. */
  private readonly latencies = new Map<string, Map<string, RouteLatency>>();

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
    scrapedMetric(this.registry, 'chat_http_requests_total', 'API requests by route, method and status', 'counter', () =>
      this.routeLatencies().flatMap((l) => [...l.statuses].map(([status, count]) => ({ labels: { route: l.route, method: l.method, status: String(status) }, value: count }))),
    );
    scrapedMetric(this.registry, 'chat_http_request_duration_seconds', 'API request latency by route (long-polls included)', 'histogram', () => {
      const out: MetricValue[] = [];
      for (const l of this.routeLatencies()) {
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += l.buckets[i]!;
          out.push({ metricName: 'chat_http_request_duration_seconds_bucket', labels: { le, route: l.route, method: l.method }, value: cumulative });
        });
        out.push({ metricName: 'chat_http_request_duration_seconds_bucket', labels: { le: '+Inf', route: l.route, method: l.method }, value: l.count });
        out.push({ metricName: 'chat_http_request_duration_seconds_sum', labels: { route: l.route, method: l.method }, value: l.sum });
        out.push({ metricName: 'chat_http_request_duration_seconds_count', labels: { route: l.route, method: l.method }, value: l.count });
      }
      return out;
    });
  }

  private routeLatencies(): RouteLatency[] {
    return [...this.latencies.values()].flatMap((byMethod) => [...byMethod.values()]);
  }

  /** Counts one answered request and records its latency. */
  observeRequest(route: string, method: string, status: number, seconds: number): void {
    let byMethod = this.latencies.get(route);
    if (!byMethod) this.latencies.set(route, (byMethod = new Map()));
    let l = byMethod.get(method);
    if (!l) byMethod.set(method, (l = { route, method, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0), sum: 0, count: 0, statuses: new Map() }));
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[b]!) b++;
    l.buckets[b]!++;
    l.sum += seconds;
    l.count++;
    l.statuses.set(status, (l.statuses.get(status) ?? 0) + 1);
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

  /**
   * A counter kept elsewhere (a plain number that only grows), read when metrics are scraped:
   * one series, or one per key under `label`.
   */
  counter(name: string, help: string, read: () => number | Record<string, number>, label = 'key'): void {
    scrapedMetric(this.registry, name, help, 'counter', () => {
      const v = read();
      if (typeof v === 'number') return [{ labels: {}, value: v }];
      return Object.entries(v).map(([k, n]) => ({ labels: { [label]: k }, value: n }));
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
