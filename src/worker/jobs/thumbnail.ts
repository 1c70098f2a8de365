// Makes the thumbnail of an uploaded image (see actions/files/thumbnails.ts). It touches no
// realm state in memory, so any worker may run it.
import { makeThumbnail } from '../../actions/files/thumbnails.js';
import type { JobDefinition } from '../../jobs/types.js';
import type { ThumbnailJob } from '../../jobs/payloads.js';
import type { WorkerJobDeps } from './deps.js';

export const thumbnailJob: JobDefinition<ThumbnailJob, WorkerJobDeps> = {
  attempts: 3,
  async run(data, { deps }) {
    await makeThumbnail(deps, data.realmId, data.attachmentId);
  },
};
