// Rate-limit buckets shared by every process of a cluster: one Redis hash per bucket, updated
// by a script so that a refill and a take are one step however many fronts and workers draw on
// the bucket. The arithmetic is that of src/auth/rateLimit.ts (refill, verdictFor).
import type { Redis } from 'ioredis';
import { verdictFor, type RateLimitStore, type RateRule, type RateVerdict } from '../src/auth/rateLimit.js';

// KEYS[1] bucket; ARGV: capacity, period in ms, now in ms. Returns {allowed, tokens × 1000}.
// The clock is the caller's: processes of a cluster share time closely enough for a budget.
const TAKE = `
local capacity = tonumber(ARGV[1])
local period = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil then
  tokens = capacity
else
  tokens = math.min(capacity, tokens + math.max(0, now - at) * capacity / period)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], period)
return {allowed, math.floor(tokens * 1000)}
`;

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async take(key: string, rule: RateRule, now = Date.now()): Promise<RateVerdict> {
    const [allowed, milliTokens] = (await this.redis.eval(
      TAKE, 1, `${this.prefix}ratelimit:${key}`, rule.requests, rule.seconds * 1000, now,
    )) as [number, number];
    return verdictFor(milliTokens / 1000, allowed === 1, rule, now);
  }
}
