// The workers of a spawned cluster as the runner sees them: their ids, process ids and
// health ports (from the membership hash each worker writes to Redis), and what each one's
// /health says it holds (realms, queue shards with their queues and parked polls).

import { Redis } from 'ioredis';
import { ApiClient } from './api.js';

export interface ClusterWorker {
  id: string;
  pid: number;
  metricsPort: number;
}

export interface HeldShard {
  shard: string;
  queues: number;
  parked: number;
}

export interface WorkerHealth {
  id: string;
  realms: string[];
  queueShards: HeldShard[];
}

/** Live members of the cluster under `prefix` (see cluster/membership.ts), sorted by id. */
export async function clusterWorkers(redisUrl: string, prefix: string): Promise<ClusterWorker[]> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const members = await redis.hgetall(`${prefix}members`);
    const workers = Object.values(members).map((text) => JSON.parse(text) as { id: string; pid: number; metricsPort?: number });
    return workers
      .filter((w) => w.metricsPort)
      .map((w) => ({ id: w.id, pid: w.pid, metricsPort: w.metricsPort as number }))
      .sort((a, b) => a.id.localeCompare(b.id));
  } finally {
    redis.disconnect();
  }
}

export async function workerHealth(worker: ClusterWorker): Promise<WorkerHealth> {
  const client = new ApiClient(`http://127.0.0.1:${worker.metricsPort}`, 'localhost');
  try {
    const res = await client.call<{ realms?: string[]; queueShards?: HeldShard[] }>('GET', '/health', undefined, { timeoutMs: 10_000 });
    return { id: worker.id, realms: res.json.realms ?? [], queueShards: res.json.queueShards ?? [] };
  } finally {
    client.close();
  }
}

/** The queue shards of one realm (`<subdomain>~<k>`) held by each of these workers now. */
export async function realmShards(workers: ClusterWorker[], subdomain: string): Promise<(HeldShard & { worker: string; holdsRealm: boolean })[]> {
  const out: (HeldShard & { worker: string; holdsRealm: boolean })[] = [];
  for (const w of workers) {
    const health = await workerHealth(w);
    for (const s of health.queueShards) {
      if (s.shard.startsWith(`${subdomain}~`)) out.push({ ...s, worker: w.id, holdsRealm: health.realms.includes(subdomain) });
    }
  }
  return out.sort((a, b) => a.shard.localeCompare(b.shard));
}
