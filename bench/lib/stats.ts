// Latency samples and their summaries. Samples are kept whole (not bucketed) so the
// percentiles are exact; a run of a few million samples costs a few tens of MB.

export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export class Samples {
  private data = new Float64Array(1024);
  private length = 0;

  add(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  get count(): number {
    return this.length;
  }

  values(): Float64Array {
    return this.data.subarray(0, this.length);
  }

  summary(): LatencySummary {
    return summarize(this.values());
  }

  clear(): void {
    this.length = 0;
  }
}

/** Nearest-rank percentile over a sorted array; `q` in [0, 1]. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

export function summarize(values: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(values).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  return {
    count: sorted.length,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.length ? sorted[sorted.length - 1] : Number.NaN,
  };
}

export function median(values: number[]): number {
  return percentile([...values].sort((a, b) => a - b), 0.5);
}

/** Milliseconds from a monotonic clock that every process on the machine shares. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Microseconds on the same clock, as an integer string (embedded in message content). */
export function monotonicMicros(): string {
  return (process.hrtime.bigint() / 1000n).toString();
}
