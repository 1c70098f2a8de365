// Rate limits as Zulip's API has them: token buckets per user (per IP address for requests
// without credentials), refilled evenly over a rule's period. One process keeps its buckets in
// memory; a cluster passes a store shared through Redis (cluster/rateLimit.ts), so every front
// and worker draws on the same budget. The failed-login limiter (failures.ts) is a bucket of
// the same kind.
import { ApiError } from '../model/errors.js';

/** `requests` per `seconds`, refilled continuously (Zulip's rules are (seconds, requests)). */
export interface RateRule {
  requests: number;
  seconds: number;
}

export interface RateVerdict {
  allowed: boolean;
  limit: number;
  /** Whole requests left after this one. */
  remaining: number;
  /** Unix time (seconds) at which the bucket is full again. */
  reset: number;
  /** Seconds until one more request is allowed (0 when allowed). */
  retryAfter: number;
}

/** Where buckets live: this process's memory, or Redis shared by a cluster. */
export interface RateLimitStore {
  take(key: string, rule: RateRule, now?: number): Promise<RateVerdict>;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** The bucket arithmetic, shared by the memory store and the Redis script (same formulas). */
export function refill(bucket: Bucket | undefined, rule: RateRule, now: number): Bucket {
  const rate = rule.requests / (rule.seconds * 1000);
  if (!bucket) return { tokens: rule.requests, at: now };
  return { tokens: Math.min(rule.requests, bucket.tokens + Math.max(0, now - bucket.at) * rate), at: now };
}

export function verdictFor(tokens: number, allowed: boolean, rule: RateRule, now: number): RateVerdict {
  const rate = rule.requests / (rule.seconds * 1000);
  return {
    allowed,
    limit: rule.requests,
    remaining: Math.max(0, Math.floor(tokens)),
    reset: Math.ceil((now + (rule.requests - tokens) / rate) / 1000),
    retryAfter: allowed ? 0 : (1 - tokens) / rate / 1000,
  };
}

/** Buckets in memory, synchronous; idle full buckets are dropped as they are met. */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  /** The bucket's state without using it. */
  peek(key: string, rule: RateRule, now = Date.now()): RateVerdict {
    const b = refill(this.buckets.get(key), rule, now);
    return verdictFor(b.tokens, b.tokens >= 1, rule, now);
  }

  take(key: string, rule: RateRule, now = Date.now()): RateVerdict {
    const b = refill(this.buckets.get(key), rule, now);
    const allowed = b.tokens >= 1;
    if (allowed) b.tokens -= 1;
    this.buckets.set(key, b);
    if (this.buckets.size > 100_000) this.sweep(rule, now);
    return verdictFor(b.tokens, allowed, rule, now);
  }

  clear(key: string): void {
    this.buckets.delete(key);
  }

  private sweep(rule: RateRule, now: number): void {
    for (const [k, b] of this.buckets) if (refill(b, rule, now).tokens >= rule.requests) this.buckets.delete(k);
  }
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new TokenBuckets();

  take(key: string, rule: RateRule, now = Date.now()): Promise<RateVerdict> {
    return Promise.resolve(this.buckets.take(key, rule, now));
  }
}

/** The rule names of the RATE_LIMITS setting, with Zulip's default values. */
export interface RateLimitRules {
  /** Every authenticated request, per user. */
  api_by_user: RateRule | null;
  /** Requests without credentials, per IP address. */
  api_by_ip: RateRule | null;
  /** Failed password checks, per username (logins) or per user (password changes). */
  authenticate_by_username: RateRule | null;
}

export const DEFAULT_RATE_LIMITS: RateLimitRules = {
  api_by_user: { requests: 200, seconds: 60 },
  api_by_ip: { requests: 100, seconds: 60 },
  authenticate_by_username: { requests: 5, seconds: 1800 },
};

/**
 * Parses RATE_LIMITS: `off` (no API limits; failed logins stay limited), or a comma list of
 * `name=requests/seconds` (or `name=off`) overriding Zulip's defaults, e.g.
 * `api_by_user=1000/60,api_by_ip=off`.
 */
export function parseRateLimits(text: string | undefined): RateLimitRules {
  const rules: RateLimitRules = { ...DEFAULT_RATE_LIMITS };
  const value = (text ?? '').trim();
  if (value === '') return rules;
  if (value === 'off') return { ...rules, api_by_user: null, api_by_ip: null };
  for (const part of value.split(',')) {
    const m = /^\s*(\w+)\s*=\s*(?:(off)|(\d+)\s*\/\s*(\d+))\s*$/.exec(part);
    if (!m || !(m[1]! in rules)) throw new Error(`RATE_LIMITS: cannot read "${part}" (name=requests/seconds or name=off)`);
    const rule = m[2] ? null : { requests: Number(m[3]), seconds: Number(m[4]) };
    if (rule && (rule.requests < 1 || rule.seconds < 1)) throw new Error(`RATE_LIMITS: "${part}" needs at least 1 request per 1 second`);
    rules[m[1] as keyof RateLimitRules] = rule;
  }
  return rules;
}

/** Zulip's RATE_LIMIT_HIT: 429, the wait in the body (`retry-after`) and the header. */
export function rateLimitHit(retryAfterSeconds: number): ApiError {
  const wait = Math.max(0.001, Math.round(retryAfterSeconds * 1000) / 1000);
  return new ApiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': wait }, {
    'Retry-After': String(Math.ceil(wait)),
  });
}

/** The X-RateLimit headers of a response. */
export function rateLimitHeaders(v: RateVerdict): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(v.limit),
    'X-RateLimit-Remaining': String(v.remaining),
    'X-RateLimit-Reset': String(v.reset),
  };
}
