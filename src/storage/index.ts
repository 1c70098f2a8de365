// Chooses the storage backend from the configuration: S3 when S3_UPLOADS_BUCKET is set, else a
// local directory under DATA_DIR.
import path from 'node:path';
import type { Config } from '../config.js';
import { LocalStorage } from './local.js';
import { S3Storage } from './s3.js';
import type { FileStorage } from './types.js';

export type { Area, FileStorage, StoredObject } from './types.js';

export function createStorage(config: Config): FileStorage {
  if (!config.S3_UPLOADS_BUCKET) return new LocalStorage(path.join(config.dataDir, 'uploads'));
  return new S3Storage({
    uploadsBucket: config.S3_UPLOADS_BUCKET,
    avatarsBucket: config.S3_AVATARS_BUCKET ?? config.S3_UPLOADS_BUCKET,
    endpoint: config.S3_ENDPOINT_URL,
    region: config.S3_REGION,
    accessKeyId: config.S3_ACCESS_KEY_ID,
    secretAccessKey: config.S3_SECRET_ACCESS_KEY,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
  });
}
