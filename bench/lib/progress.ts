// Progress on stderr, one line per step, so stdout carries only the final table.

const started = performance.now();

function stamp(): string {
  return `[bench ${((performance.now() - started) / 1000).toFixed(1).padStart(6)}s]`;
}

export function progress(message: string): void {
  process.stderr.write(`${stamp()} ${message}\n`);
}

/** Runs a step, printing one line when it ends with how long it took and its outcome. */
export async function step<T>(name: string, fn: () => Promise<T>, describe?: (value: T) => string): Promise<T> {
  const t0 = performance.now();
  try {
    const value = await fn();
    const seconds = ((performance.now() - t0) / 1000).toFixed(1);
    progress(`${name}: ${describe ? describe(value) : 'done'} (${seconds}s)`);
    return value;
  } catch (err) {
    progress(`${name}: failed: ${errorText(err)}`);
    throw err;
  }
}

export function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0].slice(0, 300);
}

export function fmt(n: number | null | undefined, digits = 0): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n >= 100 ? `${fmt(n, 0)} ms` : n >= 10 ? `${fmt(n, 1)} ms` : `${fmt(n, 2)} ms`;
}

/** A CPU time given in µs: "85 µs", "1.24 ms". */
export function micros(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n >= 1000 ? ms(n / 1000) : n >= 10 ? `${fmt(n, 0)} µs` : `${fmt(n, 1)} µs`;
}
