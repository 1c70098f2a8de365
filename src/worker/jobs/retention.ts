// The retention sweep: each worker process cleans the realms whose actors it holds (a realm
// has one writer). A realm held by no process waits for its next activation's sweeps.
import { deleteExpiredMessages } from '../../actions/messages/retention.js';
import { describeError, type JobDefinition } from '../../jobs/types.js';
import type { RetentionJob } from '../../jobs/payloads.js';
import type { WorkerJobDeps } from './deps.js';
import { RealmNotHereError } from '../../realm/services.js';

export const retentionJob: JobDefinition<RetentionJob, WorkerJobDeps> = {
  // A failed sweep is not retried: the next one comes within the interval.
  attempts: 1,
  async run(_data, { deps, log }) {
    for (const actor of [...deps.registry.actors()]) {
      // Handed to another worker since the sweep started: that worker's sweep covers it.
      if (deps.registry.activeById(actor.realm.id) !== actor) continue;
      try {
        const deleted = await actor.working(() => deleteExpiredMessages(actor));
        if (deleted > 0) log.info({ realm: actor.realm.stringId, deleted }, 'expired messages deleted');
      } catch (err) {
        // Handed to another worker meanwhile: that worker's sweep covers it.
        if (err instanceof RealmNotHereError) continue;
        log.error({ realm: actor.realm.stringId, err: describeError(err) }, 'message retention failed');
      }
    }
  },
};
