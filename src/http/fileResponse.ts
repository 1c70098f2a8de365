// Streams a stored file to the client: byte ranges (for audio and video players), the headers
// that keep a browser from running what it downloads, and backpressure (a slow client pauses
// the read from storage instead of filling memory).
import type { HttpResponse } from 'uWebSockets.js';
import type { Readable } from 'node:stream';
import type { FileStorage } from '../storage/index.js';
import type { FileToServe } from './contract.js';
import { endHead } from './headAnswer.js';

export type ByteRange = { start: number; end?: number };

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` (one range; several are served whole). */
export function parseRange(header: string, size: number): ByteRange | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

interface Sink {
  res: HttpResponse;
  aborted: boolean;
}

/** Writes status, headers and the stream's bytes; ends the response when the stream ends. */
function pipeToResponse(sink: Sink, status: string, headers: Record<string, string>, body: Readable, length: number): void {
  const { res } = sink;
  let headersSent = false;
  const writeHead = () => {
    if (headersSent) return;
    headersSent = true;
    res.writeStatus(status);
    for (const k in headers) res.writeHeader(k, headers[k]!);
  };
  if (length === 0) {
    body.destroy();
    res.cork(() => {
      writeHead();
      res.end();
    });
    sink.aborted = true;
    return;
  }
  let pending: ArrayBuffer | null = null;
  let pendingOffset = 0;
  body.on('data', (chunk: Buffer) => {
    if (sink.aborted) return void body.destroy();
    const ab = chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength) as ArrayBuffer;
    res.cork(() => {
      writeHead();
      const offset = res.getWriteOffset();
      const [ok, done] = res.tryEnd(ab, length);
      if (done) {
        sink.aborted = true;
        body.destroy();
      } else if (!ok) {
        body.pause();
        pending = ab;
        pendingOffset = offset;
        res.onWritable((at) => {
          const [ok2, done2] = res.tryEnd(pending!.slice(at - pendingOffset), length);
          if (done2) {
            sink.aborted = true;
            body.destroy();
          } else if (ok2) {
            pending = null;
            body.resume();
          }
          return ok2;
        });
      }
    });
  });
  body.on('error', () => {
    if (sink.aborted) return;
    sink.aborted = true;
    res.cork(() => res.close());
  });
}

/**
 * Serves a file; `onMissing` answers when the object is not in storage (a file whose row
 * outlived its bytes answers as one that never existed).
 */
export async function serveFile(
  storage: FileStorage,
  sink: Sink,
  file: FileToServe,
  request: { method: string; range: string },
  onMissing: () => void,
): Promise<void> {
  const size = await storage.size(file.area, file.key);
  if (sink.aborted) return;
  if (size === null) return onMissing();
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    'Content-Disposition': file.disposition,
    'Cache-Control': file.cacheControl,
    'X-Content-Type-Options': 'nosniff',
    // A file opened in the browser runs nothing and reaches nothing of the site.
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; media-src 'self'; sandbox",
    'Accept-Ranges': 'bytes',
  };
  const range = request.range ? parseRange(request.range, size) : null;
  if (range === 'unsatisfiable') {
    sink.aborted = true;
    sink.res.cork(() => {
      sink.res.writeStatus('416 Range Not Satisfiable');
      sink.res.writeHeader('Content-Range', `bytes */${size}`);
      sink.res.end();
    });
    return;
  }
  if (request.method === 'HEAD') {
    sink.aborted = true;
    sink.res.cork(() => {
      sink.res.writeStatus('200 OK');
      for (const k in headers) sink.res.writeHeader(k, headers[k]!);
      endHead(sink.res, size);
    });
    return;
  }
  const object = await storage.get(file.area, file.key, range ?? undefined);
  if (sink.aborted) return void object?.body.destroy();
  if (!object) return onMissing();
  if (range) {
    const end = object.range?.end ?? size - 1;
    const start = object.range?.start ?? range.start;
    headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
    pipeToResponse(sink, '206 Partial Content', headers, object.body, end - start + 1);
  } else {
    pipeToResponse(sink, '200 OK', headers, object.body, size);
  }
}
