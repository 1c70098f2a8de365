// Process entry: reads the configuration and starts the roles asked for. With no
// configuration it runs everything in one process on an embedded Postgres under ./data.
import './http/headLimit.js'; // first: sets the request head limit before uWebSockets.js loads
import { loadConfig } from './config.js';
import { log } from './log.js';
import { connectDatabase } from './db/connect.js';
import { createDemoRealmIfEmpty, seedDemoRealm } from './worker/bootstrap.js';
import { startWorker } from './worker/index.js';
import { InProcessRouter } from './http/inProcessRouter.js';
import { FrontServer } from './http/server.js';
import { Metrics } from './http/metrics.js';
import { parseRateLimits } from './auth/rateLimit.js';
import { registerWorkerMetrics } from './worker/metrics.js';

async function main(): Promise<void> {
  const config = loadConfig();
  // The front and worker roles belong to a cluster, which has its own entry (src/ knows
  // nothing of Redis or placement): tell the user where it is.
  const flag = process.argv.indexOf('--role');
  const role = flag >= 0 ? process.argv[flag + 1] : config.ROLE;
  if (role !== 'all') {
    throw new Error(
      `ROLE=${role} runs as part of a cluster: start it with \`node dist/cluster/main.js --role ${role}\` ` +
        `(it needs DATABASE_URL and REDIS_URL; see cluster/README.md), or \`npm run cluster\` for a local cluster. ` +
        `Without ROLE, \`npm start\` runs everything in one process.`,
    );
  }
  const db = await connectDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, role: 'server' });
  log.info({ embedded: db.embedded, dataDir: db.embedded ? config.dataDir : undefined }, 'database ready');
  const banner = config.DEMO_REALM ? await createDemoRealmIfEmpty(db.sql, config) : null;
  if (banner) process.stdout.write(banner);
  const worker = await startWorker(config, db.sql, log);
  if (banner) await seedDemoRealm(worker.registry);
  const metrics = new Metrics();
  registerWorkerMetrics(metrics, worker);
  const front = new FrontServer({
    config,
    router: new InProcessRouter(worker.handler),
    log,
    metrics,
    limitsByAddress: parseRateLimits(config.RATE_LIMITS).api_by_ip !== null,
    health: () => ({ status: 'ok', role: 'all', realms_active: worker.registry.activeCount }),
  });
  const port = await front.listen(config.PORT, config.HOST);
  log.info({ port, externalHost: config.externalHost }, 'listening');
  process.stdout.write(`Server listening on http://${config.externalHost} (port ${port})\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    worker.registry.close(); // ends parked long-polls so the front can drain
    await front.close();
    await worker.stop();
    await db.close();
    log.flush?.();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'failed to start');
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
