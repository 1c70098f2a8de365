// Multipart bodies read as a stream: each file part goes straight to storage under a staging
// key (`tmp/<uuid>`) while it arrives, so a large upload never sits whole in memory; the other
// parts become parameters. The worker decides what a staged file becomes (it moves the ones it
// keeps); the front deletes every staged key once the request is answered, so an upload that
// fails, is refused or is aborted leaves nothing behind.
import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import type { FileStorage } from '../storage/index.js';
import { ApiError } from '../model/errors.js';
import type { UploadedFile } from './contract.js';
import type { RawParams } from './params.js';

export const STAGING_PREFIX = 'tmp';

export interface MultipartLimits {
  /** Largest file part in bytes. */
  fileBytes: number;
  /** Largest total of the other parts, in bytes. */
  fieldBytes: number;
}

export class UploadTooLargeError extends ApiError {}

/**
 * A multipart body fed chunk by chunk. `write` answers false when the parser wants the
 * sender paused; `drained` then resolves when it may go on.
 */
export class StreamingMultipart {
  private readonly bb: busboy.Busboy;
  private readonly puts: Promise<void>[] = [];
  readonly files: UploadedFile[] = [];
  /** Every staging key written or being written, to be deleted when the request is over. */
  readonly stagedKeys: string[] = [];
  private fieldBytes = 0;
  private failure: ApiError | null = null;
  private readonly finished: Promise<void>;

  constructor(
    private readonly storage: FileStorage,
    contentType: string,
    readonly params: RawParams,
    private readonly limits: MultipartLimits,
  ) {
    try {
      this.bb = busboy({
        headers: { 'content-type': contentType },
        defParamCharset: 'utf8',
        limits: { fileSize: limits.fileBytes, fieldSize: limits.fieldBytes, files: 20, parts: 1000 },
      });
    } catch {
      throw new ApiError('BAD_REQUEST', 'Malformed multipart body', 400);
    }
    this.finished = new Promise((resolve, reject) => {
      this.bb.on('close', resolve);
      this.bb.on('error', () => reject(new ApiError('BAD_REQUEST', 'Malformed multipart body', 400)));
    });
    this.finished.catch(() => undefined);
    this.bb.on('field', (name, value) => {
      this.fieldBytes += value.length;
      if (this.fieldBytes > limits.fieldBytes) this.failure ??= new ApiError('BAD_REQUEST', 'Request body too large', 413);
      this.params[name] = value;
    });
    this.bb.on('file', (field, stream, info) => {
      const key = `${STAGING_PREFIX}/${randomUUID()}`;
      this.stagedKeys.push(key);
      const contentType = info.mimeType || 'application/octet-stream';
      const put = this.storage.put('uploads', key, stream, contentType).then(({ size }) => {
        if (stream.truncated) {
          const mib = Math.round(limits.fileBytes / (1024 * 1024));
          this.failure ??= new UploadTooLargeError('BAD_REQUEST', `File is larger than this server's configured maximum upload size (${mib} MiB).`, 400);
          return;
        }
        this.files.push({ field, key, filename: info.filename ?? field, contentType, size });
      });
      this.puts.push(put);
    });
  }

  write(chunk: Buffer): boolean {
    return this.bb.write(chunk);
  }

  drained(): Promise<void> {
    return new Promise((resolve) => this.bb.once('drain', resolve));
  }

  /** The body ended: waits for every file to be stored; throws what went wrong. */
  async end(): Promise<void> {
    this.bb.end();
    await this.finished;
    const results = await Promise.allSettled(this.puts);
    if (this.failure) throw this.failure;
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason instanceof ApiError ? failed.reason : new ApiError('BAD_REQUEST', 'Upload failed', 400);
  }

  /** The client went away: stops the parser (storage writes in flight fail and leave nothing). */
  abort(): void {
    this.bb.destroy(new Error('aborted'));
  }

  /** Deletes every staged file (the ones the worker kept were moved away before). */
  async cleanup(): Promise<void> {
    await Promise.allSettled(this.puts);
    await Promise.allSettled(this.stagedKeys.map((k) => this.storage.delete('uploads', k)));
  }
}
