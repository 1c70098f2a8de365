// Failed password checks per key (a username, a user), limited by Zulip's
// authenticate_by_username rule (RATE_LIMITS, Zulip's 5 per 30 minutes by default): a token
// bucket of the API limiter's kind (rateLimit.ts), spent by each failure and looked at before each try.
import { parseRateLimits, rateLimitHit, TokenBuckets, type RateRule } from './rateLimit.js';

/** The rule for failed password checks from RATE_LIMITS (Zulip's default when unset). */
export const failedPasswordRule = (rateLimits: string | undefined): RateRule | null => parseRateLimits(rateLimits).authenticate_by_username;

export class FailureLimiter {
  private readonly buckets = new TokenBuckets();

  /** `rule`: the authenticate_by_username rule; null means no limit. */
  check(key: string, rule: RateRule | null, now = Date.now()): void {
    if (!rule) return;
    const v = this.buckets.peek(key, rule, now);
    if (!v.allowed) throw rateLimitHit(v.retryAfter);
  }

  record(key: string, rule: RateRule | null, now = Date.now()): void {
    if (rule) this.buckets.take(key, rule, now);
  }

  clear(key: string): void {
    this.buckets.clear(key);
  }
}
