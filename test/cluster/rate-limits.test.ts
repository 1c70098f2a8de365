// Rate limits in a cluster: a user's budget lives in Redis, so a request through the second
// front draws on the same bucket as one through the first (the second front does not give a
// fresh budget), and the bucket is a key under the cluster's prefix.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, type ClusterClient } from '../helpers/cluster.js';

let cluster: TestCluster;
let owner: ClusterClient;

beforeAll(async () => {
  cluster = await TestCluster.start({ fronts: 2, workers: ['w1'], env: { RATE_LIMITS: 'api_by_user=6/60' } });
  owner = await cluster.newRealm('ratelimited');
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('a user budget across two fronts', () => {
  it('is shared: three requests through each front spend it, the next one through either is refused', async () => {
    const [a, b] = cluster.fronts;
    const remaining: number[] = [];
    for (const front of [a!, b!, a!, b!, a!, b!]) {
      owner.port = front.port;
      const r = await owner.get('/users/me');
      expect(r.status).toBe(200);
      remaining.push(Number(r.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([5, 4, 3, 2, 1, 0]);
    for (const front of [a!, b!]) {
      owner.port = front.port;
      const r = await owner.get('/users/me');
      expect(r.status).toBe(429);
      expect(r.body.code).toBe('RATE_LIMIT_HIT');
    }
    const keys = await cluster.redis.keys(`${cluster.prefix}ratelimit:user:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`:${owner.userId}$`));
  });
});
