// The front role of a cluster: the same HTTP front tier as the one-process mode, with the
// cluster router in place of the in-process one. Fronts hold no realm state and no
// credentials: authentication happens on the realm's owner, so revoking a key or deactivating
// a user takes effect everywhere at once.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Config } from '../src/config.js';
import type { Logger } from '../src/log.js';
import { FrontServer } from '../src/http/server.js';
import { Metrics } from '../src/http/metrics.js';
import { parseRateLimits } from '../src/auth/rateLimit.js';
import type { ClusterConfig } from './config.js';
import { connectRedis, redisKeys } from './redis.js';
import { MembershipView } from './membership.js';
import { ClusterRouter } from './frontRouter.js';

export interface ClusterFront {
  id: string;
  port: number;
  stop(): Promise<void>;
}

export async function startClusterFront(config: Config, cc: ClusterConfig, log: Logger): Promise<ClusterFront> {
  const id = `front-${os.hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const flog = log.child({ front: id });
  const redis = connectRedis(cc.redisUrl, cc.REDIS_PREFIX, 'front', flog);
  const subscriber = connectRedis(cc.redisUrl, cc.REDIS_PREFIX, 'front-sub', flog);
  await redis.ping().catch((err: Error) => {
    throw new Error(`Cannot reach Redis at ${cc.redisUrl}: ${err.message}`);
  });
  const view = new MembershipView(redis, subscriber, redisKeys(cc.REDIS_PREFIX), cc, flog);
  await view.start();
  const router = new ClusterRouter(
    view,
    { frontId: id, MAX_IN_FLIGHT: cc.MAX_IN_FLIGHT, REROUTE_BUDGET_MS: cc.REROUTE_BUDGET_MS, REQUEST_TIMEOUT_MS: cc.REQUEST_TIMEOUT_MS, QUEUE_SHARDS: cc.QUEUE_SHARDS, heartbeatSeconds: config.HEARTBEAT_SECONDS },
    flog,
  );
  const metrics = new Metrics();
  metrics.gauge('chat_cluster_workers_live', 'Workers this front routes to', () => view.live().length);
  const front = new FrontServer({
    config,
    router,
    log: flog,
    metrics,
    limitsByAddress: parseRateLimits(config.RATE_LIMITS).api_by_ip !== null,
    health: () => ({ status: 'ok', role: 'front', id, workers: router.workers() }),
  });
  const port = await front.listen(config.PORT, config.HOST);
  flog.info({ port, workers: view.live().length }, 'front listening');

  let stopping = false;
  return {
    id,
    port,
    async stop() {
      if (stopping) return;
      stopping = true;
      // Parked long-polls are answered (no events) so clients reconnect through another front.
      router.releasePolls();
      await front.close();
      await router.close();
      await view.close();
      await Promise.all([redis.quit(), subscriber.quit()]).catch((err: unknown) => flog.debug({ err }, 'redis quit failed'));
    },
  };
}
