// Multipart bodies: each file part goes to storage under a staging key (`tmp/<uuid>`) as a
// stream, so a large upload never sits whole in memory; the other parts become parameters. The worker decides what a staged file becomes (it moves the ones it
// keeps); the front deletes every staged key once the request is answered, so an upload that
// fails, is refused or is aborted leaves nothing behind.
import busboy from 'busboy';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
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

/** Bodies up to this size are parsed from memory; larger ones are spooled to a file first. */
const IN_MEMORY_BYTES = 1024 * 1024;

/**
 * A multipart body fed chunk by chunk. uWebSockets.js cannot be relied on to stop reading
 * when asked to pause (data already read keeps coming, and more under load), so the front
 * never waits on the parser: each chunk of a large body is appended to a spool file at once
 * (the page cache takes it; memory stays flat), and the parser then reads the file with
 * backpressure all the way to storage.
 */
export class StreamingMultipart {
  private readonly puts: Promise<void>[] = [];
  readonly files: UploadedFile[] = [];
  /** Every staging key written or being written, to be deleted when the request is over. */
  readonly stagedKeys: string[] = [];
  private fieldBytes = 0;
  private failure: ApiError | null = null;
  private memory: Buffer[] = [];
  private memoryBytes = 0;
  private spool: { path: string; fd: number } | null = null;
  private parser: busboy.Busboy | null = null;
  private done = false;

  constructor(
    private readonly storage: FileStorage,
    private readonly contentType: string,
    readonly params: RawParams,
    private readonly limits: MultipartLimits,
    private readonly spoolDir: string,
  ) {
    if (!/boundary=/i.test(contentType)) throw new ApiError('BAD_REQUEST', 'Malformed multipart body', 400);
  }

  /** Takes a chunk (copied or written out before this returns: the caller may reuse its memory). */
  write(chunk: Uint8Array): void {
    if (this.done) return;
    if (!this.spool && this.memoryBytes + chunk.byteLength <= IN_MEMORY_BYTES) {
      this.memory.push(Buffer.from(chunk));
      this.memoryBytes += chunk.byteLength;
      return;
    }
    if (!this.spool) {
      fs.mkdirSync(this.spoolDir, { recursive: true });
      const file = path.join(this.spoolDir, `upload-${randomUUID()}`);
      this.spool = { path: file, fd: fs.openSync(file, 'wx', 0o600) };
      for (const b of this.memory) fs.writeSync(this.spool.fd, b);
      this.memory = [];
    }
    fs.writeSync(this.spool.fd, chunk);
  }

  /** The body ended: parses it, storing each file part; throws what went wrong. */
  async end(): Promise<void> {
    this.done = true;
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': this.contentType },
        defParamCharset: 'utf8',
        limits: { fileSize: this.limits.fileBytes, fieldSize: this.limits.fieldBytes, files: 20, parts: 1000 },
      });
    } catch {
      throw new ApiError('BAD_REQUEST', 'Malformed multipart body', 400);
    }
    this.parser = bb;
    bb.on('field', (name, value) => {
      this.fieldBytes += value.length;
      if (this.fieldBytes > this.limits.fieldBytes) this.failure ??= new ApiError('BAD_REQUEST', 'Request body too large', 413);
      this.params[name] = value;
    });
    bb.on('file', (field, stream, info) => this.storeFile(field, stream, info));
    let source: Readable;
    if (this.spool) {
      fs.closeSync(this.spool.fd);
      source = fs.createReadStream(this.spool.path);
    } else {
      source = Readable.from(this.memory);
      this.memory = [];
    }
    try {
      await pipeline(source, bb);
    } catch (err) {
      // The parser's own words stay out of the answer: one plain message, as for any malformed body.
      throw err instanceof ApiError ? err : new ApiError('BAD_REQUEST', 'Malformed multipart body', 400);
    }
    const results = await Promise.allSettled(this.puts);
    if (this.failure) throw this.failure;
    const failed = results.find((r) => r.status === 'rejected');
    // Storage that fails is the server's trouble, not the client's: the caller logs it.
    if (failed) throw failed.reason;
  }

  private storeFile(field: string, stream: Readable & { truncated?: boolean }, info: busboy.FileInfo): void {
    const key = `${STAGING_PREFIX}/${randomUUID()}`;
    this.stagedKeys.push(key);
    const contentType = info.mimeType || 'application/octet-stream';
    const put = this.storage.put('uploads', key, stream, contentType).then(({ size }) => {
      if (stream.truncated) {
        const mib = Math.round(this.limits.fileBytes / (1024 * 1024));
        this.failure ??= new UploadTooLargeError('BAD_REQUEST', `File is larger than this server's configured maximum upload size (${mib} MiB).`, 400);
        return;
      }
      this.files.push({ field, key, filename: info.filename ?? field, contentType, size });
    });
    this.puts.push(put);
  }

  /** The client went away: stops the parser (storage writes in flight fail and leave nothing). */
  abort(): void {
    this.done = true;
    this.parser?.destroy(new Error('aborted'));
  }

  /** Deletes the spool file and every staged file (the ones the worker kept were moved away before). */
  async cleanup(): Promise<void> {
    this.memory = [];
    if (this.spool) {
      try {
        fs.closeSync(this.spool.fd);
      } catch {
        // closed already by end()
      }
      await fsp.rm(this.spool.path, { force: true });
    }
    await Promise.allSettled(this.puts);
    await Promise.allSettled(this.stagedKeys.map((k) => this.storage.delete('uploads', k)));
  }
}
