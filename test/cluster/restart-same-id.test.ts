// A worker restarted under the same WORKER_ID after a crash (as a systemd unit with a stable
// name is): the new process waits for the old membership key to expire, then announces itself
// within a quarter of a second, at another address. A front reading membership now and then
// sees the same id before and after, never a change of members; it must still follow the
// entry to the new address instead of retrying the dead one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestCluster, type ClusterClient } from '../helpers/cluster.js';
import { sleep } from './load.js';

let cluster: TestCluster;
let owner: ClusterClient;

beforeAll(async () => {
  // Membership is read on its messages (joins and leaves) and only every 10 s otherwise, so the
  // front does not happen to read it in the moment between the old key's expiry and the join.
  cluster = await TestCluster.start({ fronts: 1, workers: ['w1'], env: { MEMBERSHIP_CHECK_MS: '10000' } });
  owner = await cluster.newRealm('samerestart');
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('a worker restarted under the same id', () => {
  it('is reached at its new address while its membership entry never lapsed', async () => {
    expect((await owner.get('/users/me')).status).toBe(200);
    const old = cluster.worker('w1');
    await cluster.signal(old, 'SIGKILL');
    const again = await cluster.addWorker('w1');
    expect(again.port).not.toBe(old.port);
    const health = await cluster.frontHealth();
    expect((health.workers as { id: string }[]).map((w) => w.id)).toEqual(['w1']);
    // The old lease names the same worker: the realm is served again at once.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await owner.get('/users/me')).status;
      if (status === 200) break;
      await sleep(200);
    }
    expect(status).toBe(200);
    const after = await cluster.frontHealth();
    expect((after.workers as { id: string; address: string }[])[0]!.address).toBe(`${again.address ?? '127.0.0.1'}:${again.port}`);
  }, 60_000);
});
