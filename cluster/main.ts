// Entry of a cluster process: `node dist/cluster/main.js --role front|worker|all` (or ROLE).
// A front serves HTTP and routes each request to the worker that owns its realm; a worker
// holds realm actors; `all` runs both in one process, joined to the cluster. Every cluster
// process needs DATABASE_URL and REDIS_URL. See cluster/README.md.
import '../src/http/headLimit.js'; // first: sets the request head limit before uWebSockets.js loads
import { loadConfig } from '../src/config.js';
import { log } from '../src/log.js';
import { loadClusterConfig } from './config.js';
import { startClusterWorker, type ClusterWorker } from './worker.js';
import { startClusterFront, type ClusterFront } from './front.js';

async function main(): Promise<void> {
  const cc = loadClusterConfig(process.env, process.argv.slice(2));
  const config = loadConfig({ ...process.env, ROLE: cc.role });
  let worker: ClusterWorker | null = null;
  let front: ClusterFront | null = null;
  if (cc.role === 'worker' || cc.role === 'all') {
    worker = await startClusterWorker(config, cc, log);
    process.stdout.write(`Worker ${worker.id} serving realms on ${cc.advertiseHost}:${worker.port}` +
      (worker.metricsPort !== null ? ` (health and metrics on port ${worker.metricsPort})` : '') + '\n');
  }
  if (cc.role === 'front' || cc.role === 'all') {
    front = await startClusterFront(config, cc, log);
    process.stdout.write(`Front listening on http://${config.externalHost} (port ${front.port})\n`);
  }

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, role: cc.role }, 'shutting down');
    try {
      await front?.stop();
      await worker?.stop();
    } catch (err) {
      log.error({ err }, 'shutdown failed');
      process.exitCode = 1;
    }
    log.flush?.();
    process.exit();
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'failed to start');
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
