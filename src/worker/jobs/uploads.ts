// The upload cleanup: each worker process removes the unclaimed uploads of the realms it holds
// (a realm has one writer), then the expired download tokens and staged uploads older than an
// hour (a front that crashed mid-request never deleted them).
import { removeUnclaimedAttachments } from '../../actions/files/attachments.js';
import { deleteExpiredUrlTokens } from '../../db/attachments.js';
import { STAGING_PREFIX } from '../../http/upload.js';
import { describeError, type JobDefinition } from '../../jobs/types.js';
import type { UploadCleanupJob } from '../../jobs/payloads.js';
import type { WorkerJobDeps } from './deps.js';
import { RealmNotHereError } from '../../realm/services.js';

const STAGED_MAX_AGE_MS = 3600 * 1000;

export const uploadCleanupJob: JobDefinition<UploadCleanupJob, WorkerJobDeps> = {
  // Not retried: the next run comes within the interval.
  attempts: 1,
  async run(_data, { deps, log }) {
    for (const actor of [...deps.registry.actors()]) {
      if (deps.registry.activeById(actor.realm.id) !== actor) continue;
      try {
        const removed = await actor.working(() => removeUnclaimedAttachments(actor));
        if (removed > 0) log.info({ realm: actor.realm.stringId, removed }, 'unclaimed uploads removed');
      } catch (err) {
        // Handed to another worker meanwhile: that worker's sweep covers it.
        if (err instanceof RealmNotHereError) continue;
        log.error({ realm: actor.realm.stringId, err: describeError(err) }, 'upload cleanup failed');
      }
    }
    await deleteExpiredUrlTokens(deps.sql);
    const stale = await deps.storage.listOlderThan('uploads', STAGING_PREFIX, new Date(Date.now() - STAGED_MAX_AGE_MS));
    for (const key of stale) await deps.storage.delete('uploads', key);
  },
};
