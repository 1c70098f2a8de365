// Files in S3-compatible object storage (AWS S3, MinIO, Ceph …), for clusters: every front and
// worker reaches the same objects. Writes go through a multipart upload of bounded parts, so
// a large file never sits whole in memory; an upload that fails is aborted, leaving nothing.
import {
  CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import { checkKey, type Area, type FileStorage, type StoredObject } from './types.js';

export interface S3Settings {
  uploadsBucket: string;
  avatarsBucket: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/** Parts of 5 MiB (S3's smallest), one in flight: an upload holds about 10 MiB at most. */
const PART_SIZE = 5 * 1024 * 1024;

const isMissing = (err: unknown) =>
  err instanceof S3ServiceException && (err.$metadata.httpStatusCode === 404 || err.name === 'NoSuchKey' || err.name === 'NotFound');

export class S3Storage implements FileStorage {
  readonly kind = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly s: S3Settings) {
    this.client = new S3Client({
      region: s.region,
      endpoint: s.endpoint,
      forcePathStyle: s.forcePathStyle,
      credentials: s.accessKeyId && s.secretAccessKey ? { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } : undefined,
    });
  }

  /** The bucket and object key of a key of an area; avatars sharing the uploads bucket live under `avatars/`. */
  private where(area: Area, key: string): { Bucket: string; Key: string } {
    checkKey(key);
    if (area === 'uploads') return { Bucket: this.s.uploadsBucket, Key: key };
    const shared = this.s.avatarsBucket === this.s.uploadsBucket;
    return { Bucket: this.s.avatarsBucket, Key: shared ? `avatars/${key}` : key };
  }

  async put(area: Area, key: string, body: Readable, contentType: string): Promise<{ size: number }> {
    let size = 0;
    body.on('data', (chunk: Buffer) => (size += chunk.length));
    const upload = new Upload({
      client: this.client,
      params: { ...this.where(area, key), Body: body, ContentType: contentType },
      partSize: PART_SIZE,
      queueSize: 1,
      leavePartsOnError: false,
    });
    await upload.done();
    return { size };
  }

  async get(area: Area, key: string, range?: { start: number; end?: number }): Promise<StoredObject | null> {
    try {
      const out = await this.client.send(
        new GetObjectCommand({ ...this.where(area, key), Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined }),
      );
      const body = out.Body as Readable;
      if (!range) return { body, size: Number(out.ContentLength ?? 0) };
      const m = /bytes (\d+)-(\d+)\/(\d+)/.exec(out.ContentRange ?? '');
      if (!m) return { body, size: Number(out.ContentLength ?? 0) };
      return { body, size: Number(m[3]), range: { start: Number(m[1]), end: Number(m[2]) } };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async size(area: Area, key: string): Promise<number | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand(this.where(area, key)));
      return Number(out.ContentLength ?? 0);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async move(area: Area, from: string, to: string): Promise<void> {
    const src = this.where(area, from);
    const dst = this.where(area, to);
    const source = `${src.Bucket}/${src.Key.split('/').map(encodeURIComponent).join('/')}`;
    await this.client.send(new CopyObjectCommand({ ...dst, CopySource: source }));
    await this.client.send(new DeleteObjectCommand(src));
  }

  async delete(area: Area, key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand(this.where(area, key)));
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async listOlderThan(area: Area, prefix: string, before: Date): Promise<string[]> {
    const { Bucket, Key } = this.where(area, prefix);
    const strip = Key.length - prefix.length;
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket, Prefix: `${Key}/`, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key && o.LastModified && o.LastModified < before) out.push(o.Key.slice(strip));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }
}
