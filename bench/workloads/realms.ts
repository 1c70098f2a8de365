// The realms each workload runs in, seeded for the run (or, against a running deployment,
// the realm of the given credentials).

import { ApiClient, ApiError } from '../lib/api.js';
import type { BenchOptions } from '../lib/options.js';
import { errorText, progress } from '../lib/progress.js';
import type { SeedingFigures } from '../lib/results.js';
import { createChannels, createRealm, createUsers, type SeededRealm } from '../lib/seed.js';
import { realmHost, type Target } from '../lib/server.js';

export interface SeedContext {
  target: Target;
  opts: BenchOptions;
  /** Only for spawned targets: the admin CLI writes to it. */
  databaseUrl?: string;
  seeding: SeedingFigures[];
  /** Caveats that belong next to the table. */
  notes: string[];
  runStamp: string;
}

/** In --url mode every workload uses the credentials' realm. */
export async function existingRealm(ctx: SeedContext): Promise<SeededRealm> {
  const { opts, target } = ctx;
  const credentials = { email: opts.email as string, apiKey: opts.apiKey as string };
  const host = realmHost(target, '');
  const client = new ApiClient(target.baseUrl, host, credentials);
  try {
    const me = await client.get<{ user_id: number }>('/users/me');
    const owner = { ...credentials, userId: me.user_id, password: '' };
    return { subdomain: '', host, owner, users: [owner] };
  } finally {
    client.close();
  }
}

/** The realm itself with its owner: created through the CLI, or the given one in --url mode. */
export async function openRealm(ctx: SeedContext, subdomain: string): Promise<SeededRealm> {
  if (ctx.opts.mode === 'url') return existingRealm(ctx);
  return createRealm(ctx.target, ctx.databaseUrl as string, subdomain, `Bench ${subdomain}`);
}

/** Adds members (up to `users` in all) and channels, and records how long that took. */
async function populateRealm(
  ctx: SeedContext,
  realm: SeededRealm,
  label: string,
  users: number,
  withKeys: number,
  channels: (realm: SeededRealm) => Promise<number>,
  startedAt = performance.now(),
): Promise<SeededRealm> {
  const via = ctx.opts.mode === 'url' ? 'api' : ctx.opts.seedUsersVia;
  const members = Math.max(0, users - realm.users.length);
  if (members > 0) {
    await createUsers({
      target: ctx.target,
      realm,
      count: members,
      prefix: ctx.opts.mode === 'url' ? `bench-${ctx.runStamp}-${label}-` : `${label}-`,
      withKeys,
      concurrency: ctx.opts.seedConcurrency,
      via,
      databaseUrl: ctx.databaseUrl,
      onProgress: (done, elapsed) => {
        const rate = done / elapsed;
        progress(`  ${label}: ${done} of ${members} users created (${rate.toFixed(1)}/s, about ${Math.ceil((members - done) / rate)} s to go)`);
      },
    });
  }
  const channelCount = await channels(realm);
  const seconds = (performance.now() - startedAt) / 1000;
  ctx.seeding.push({
    realm: label,
    users: realm.users.length,
    channels: channelCount,
    via: ctx.opts.mode === 'url' ? 'api' : `CLI realm + ${via} users`,
    seconds,
    usersPerSecond: realm.users.length / seconds,
  });
  return realm;
}

/**
 * Realm "send": `subscribers` users, all subscribed to every bench channel. Against a
 * running deployment without --seed, the one given user is sender and only subscriber.
 */
export async function populateSendRealm(ctx: SeedContext, realm: SeededRealm, channelNames: string[]): Promise<SeededRealm> {
  const { opts } = ctx;
  const users = opts.mode !== 'url' || opts.seed ? opts.subscribers : 1;
  return populateRealm(ctx, realm, 'send', users, users, async () => {
    await createChannels(ctx.target, realm, channelNames, realm.users.map((u) => u.userId));
    return channelNames.length;
  });
}

/**
 * Realm "register": `registerUsers` users and `registerChannels` channels. Channels come in
 * groups of ten sharing a slice of the users, so each user is in about ten channels and each
 * channel has users/groups subscribers (plus the owner, who is in all of them).
 */
export async function seedRegisterRealm(ctx: SeedContext): Promise<SeededRealm> {
  const { opts } = ctx;
  // Against a running deployment, measure its realm as it is unless asked to seed.
  const startedAt = performance.now();
  const realm = await openRealm(ctx, 'register');
  if (opts.mode === 'url' && !opts.seed) return realm;
  return populateRealm(ctx, realm, 'register', opts.registerUsers, opts.registerConcurrency, async () => {
    const groupSize = 10;
    const groups = Math.max(1, Math.ceil(opts.registerChannels / groupSize));
    const members = realm.users.slice(1).map((u) => u.userId);
    const perGroup = Math.max(1, Math.ceil(members.length / groups));
    try {
      for (let g = 0; g < groups; g++) {
        const names: string[] = [];
        for (let c = g * groupSize; c < Math.min(opts.registerChannels, (g + 1) * groupSize); c++) names.push(`channel-${c}`);
        await createChannels(ctx.target, realm, names, members.slice(g * perGroup, (g + 1) * perGroup), groupSize);
        if ((g + 1) % 20 === 0) progress(`  register: ${(g + 1) * groupSize} of ${opts.registerChannels} channels created`);
      }
    } catch (err) {
      // A register on users alone still says something while channels are not built yet.
      if (!(err instanceof ApiError && err.missing)) throw err;
      progress(`  register: no channels (${errorText(err)}); measuring with users only`);
      ctx.notes.push(`register realm has no channels: ${errorText(err)}`);
      return 0;
    }
    return opts.registerChannels;
  }, startedAt);
}

/** Realm "idle": enough users for `polls` queues at `queuesPerUser` each. */
export async function seedIdleRealm(ctx: SeedContext, users: number): Promise<SeededRealm> {
  const startedAt = performance.now();
  const realm = await openRealm(ctx, 'idle');
  if (ctx.opts.mode === 'url' && !ctx.opts.seed) return realm;
  return populateRealm(ctx, realm, 'idle', users, users, async () => 0, startedAt);
}
