// Failed password checks per key (a username, a user), limited by Zulip's
// authenticate_by_username rule: a token bucket of the API limiter's kind (rateLimit.ts),
// spent by each failure and looked at before each try.
import { DEFAULT_RATE_LIMITS, rateLimitHit, TokenBuckets, type RateRule } from './rateLimit.js';

export class FailureLimiter {
  private readonly buckets = new TokenBuckets();
  private readonly rule: RateRule;

  constructor(rule: RateRule | null = DEFAULT_RATE_LIMITS.authenticate_by_username) {
    // No rule: a bucket no failure can empty.
    this.rule = rule ?? { requests: Number.MAX_SAFE_INTEGER, seconds: 1 };
  }

  check(key: string, now = Date.now()): void {
    const v = this.buckets.peek(key, this.rule, now);
    if (!v.allowed) throw rateLimitHit(v.retryAfter);
  }

  record(key: string, now = Date.now()): void {
    this.buckets.take(key, this.rule, now);
  }

  clear(key: string): void {
    this.buckets.clear(key);
  }
}
