// Counts failed logins per key in a sliding window and refuses further tries past the limit.
import { ApiError } from '../model/errors.js';

export class FailureLimiter {
  private readonly attempts = new Map<string, number[]>();

  constructor(private readonly limit: number, private readonly windowSeconds: number) {}

  private recent(key: string, now: number): number[] {
    const cutoff = now - this.windowSeconds * 1000;
    const list = (this.attempts.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.attempts.set(key, list);
    else this.attempts.delete(key);
    return list;
  }

  check(key: string, now = Date.now()): void {
    const list = this.recent(key, now);
    if (list.length >= this.limit) {
      const retryAfter = Math.max(1, Math.ceil((list[0]! + this.windowSeconds * 1000 - now) / 1000));
      throw new ApiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': retryAfter }, {
        'Retry-After': String(retryAfter),
      });
    }
  }

  record(key: string, now = Date.now()): void {
    this.recent(key, now).push(now);
    if (!this.attempts.has(key)) this.attempts.set(key, [now]);
  }

  clear(key: string): void {
    this.attempts.delete(key);
  }
}
