// Helpers for the file tests: a server per storage backend (a local directory, or an
// S3-protocol server started here), multipart uploads and binary downloads.
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { freePort } from '../../scripts/freePort.js';
import { startOwnServer, OwnClient, type OwnServer } from '../helpers/ownServer.js';
import type { Client, Params, Reply } from '../helpers/client.js';

export interface Backend {
  name: 'local' | 's3';
  server: OwnServer;
  /** Where the backend keeps its bytes on this machine (the data directory, or s3rver's). */
  dir: string;
  stop(): Promise<void>;
}

export const S3_BUCKET = 'chat-uploads';
const require = createRequire(import.meta.url);

/**
 * A real S3-protocol server on loopback, its data in a directory of its own. It runs in a
 * child process: s3rver reports some races of its own (a read racing a delete of the same key)
 * as unhandled errors, which must not land in the test runner.
 */
export async function startS3(): Promise<{ endpoint: string; dir: string; close: () => Promise<void> }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-s3-'));
  const port = await freePort();
  const script = `
    const S3rver = require(${JSON.stringify(require.resolve('s3rver'))});
    process.on('unhandledRejection', () => {});
    new S3rver({ port: ${port}, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)},
      configureBuckets: [{ name: ${JSON.stringify(S3_BUCKET)}, configs: [] }] }).run().then(() => console.log('ready'));`;
  const proc = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    proc.once('exit', (code) => reject(new Error(`s3rver exited with ${code}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    dir,
    async close() {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A server of its own on the given backend, with extra settings. */
export async function startBackend(name: 'local' | 's3', env: Record<string, string> = {}): Promise<Backend> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chat-files-'));
  if (name === 'local') {
    const server = await startOwnServer({ DATA_DIR: dataDir, ...env }, false);
    return {
      name, server, dir: dataDir,
      async stop() {
        await server.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const s3 = await startS3();
  const server = await startOwnServer({
    DATA_DIR: dataDir,
    S3_UPLOADS_BUCKET: S3_BUCKET,
    S3_ENDPOINT_URL: s3.endpoint,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
    ...env,
  }, false);
  return {
    name, server, dir: s3.dir,
    async stop() {
      await server.stop();
      await s3.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Every file under a directory (relative paths), for "nothing was left behind" checks. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.isFile());
}

const isStaged = (f: string) => f.split(path.sep).includes('tmp');

/** Files kept for good (uploads, avatars …). */
export const storedFiles = (dir: string) => filesUnder(dir).filter((f) => !isStaged(f));

/** Uploads still being received or waiting for the worker (staging keys `tmp/…`). */
export const stagedFiles = (dir: string) => filesUnder(dir).filter(isStaged);

export interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

export function multipart(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----chatTestBoundary${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"`;
    if (p.filename !== undefined) head += `; filename="${p.filename}"`;
    head += '\r\n';
    if (p.contentType) head += `Content-Type: ${p.contentType}\r\n`;
    chunks.push(Buffer.from(head + '\r\n'), Buffer.from(p.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export interface BinaryReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** One request whose answer is kept as bytes (and parsed as JSON when it is JSON). */
export function binaryRequest(
  port: number,
  opts: { method: string; path: string; host: string; headers?: Record<string, string>; body?: Buffer | Readable },
): Promise<BinaryReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method, path: opts.path, agent: false, headers: { Host: opts.host, ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        let json = {};
        if (String(res.headers['content-type']).startsWith('application/json')) json = JSON.parse(body.toString('utf8'));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json });
      });
    });
    req.on('error', reject);
    if (opts.body instanceof Readable) opts.body.pipe(req);
    else req.end(opts.body);
  });
}

/** A multipart request (POST by default) with these parts to an API path. */
export function binaryUpload(c: FileClient, apiPath: string, parts: Part[], method = 'POST'): Promise<BinaryReply> {
  const { body, contentType } = multipart(parts);
  return binaryRequest(c.port, {
    method, path: apiPath, host: c.host, body,
    headers: { Authorization: basic(c.user), 'Content-Type': contentType, 'Content-Length': String(body.length) },
  });
}

const basic = (c: Client) => 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');

/** A user of a test realm, speaking to one backend's server. */
export class FileClient {
  readonly api: OwnClient;

  constructor(
    readonly port: number,
    readonly user: Client,
  ) {
    this.api = new OwnClient(port, user);
  }

  get userId(): number {
    return this.user.userId!;
  }

  get host(): string {
    return `${this.user.subdomain}.localhost:${this.port}`;
  }

  /** POST /user_uploads with the given parts (by default one file). */
  upload(parts: Part[] | { filename: string; data: Buffer | string; contentType?: string }): Promise<BinaryReply> {
    const list = Array.isArray(parts) ? parts : [{ name: 'file', ...parts, contentType: parts.contentType ?? 'application/octet-stream' }];
    return binaryUpload(this, '/api/v1/user_uploads', list);
  }

  /** A GET of a file URL (`/user_uploads/…`) with this user's credentials, or none. */
  fetch(url: string, opts: { anonymous?: boolean; headers?: Record<string, string>; method?: string } = {}): Promise<BinaryReply> {
    return binaryRequest(this.port, {
      method: opts.method ?? 'GET', path: url, host: this.host,
      headers: { ...(opts.anonymous ? {} : { Authorization: basic(this.user) }), ...opts.headers },
    });
  }

  async ok(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', p: string, params?: Params): Promise<Reply['body']> {
    return this.api.ok(method, p, params);
  }
}

/** A PNG file's chunk: length, type, data, CRC. */
function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([head, body, crc]);
}

/**
 * A tiny PNG whose header claims a huge image (a decompression bomb's shape): a few hundred
 * bytes that would decode to width × height pixels.
 */
export function pngClaiming(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}
