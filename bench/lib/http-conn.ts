// A minimal HTTP/1.1 keep-alive client connection: one request in flight at a time,
// responses framed by Content-Length or chunked encoding.
//
// Why not node:http: on a 2-core machine its client tops out near 33,000 requests/s,
// below what a uWebSockets.js hello world serves, so it would measure itself instead of
// the server. This client spends a few microseconds per request, which keeps the load
// generator ahead of the target for the throughput baselines.

import net from 'node:net';
import tls from 'node:tls';

export interface Endpoint {
  host: string;
  port: number;
  tls: boolean;
}

export interface HttpResult {
  status: number;
  body: Buffer;
}

export type ResponseCallback = (err: Error | null, res: HttpResult | null) => void;

const HEADER_END = Buffer.from('\r\n\r\n');
/**
 * Where plain-TCP connections read into (one for all: each read is copied out at once).
 * Read through the stream's 'data' events, every read cost a fresh 64 KB buffer and the
 * stream's own bookkeeping, which took much of a fan-out agent's CPU.
 */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);
const CHUNKED_END = Buffer.from('0\r\n\r\n');

export function endpointFromUrl(url: string): Endpoint {
  const u = new URL(url);
  const isTls = u.protocol === 'https:';
  return { host: u.hostname, port: u.port ? Number(u.port) : isTls ? 443 : 80, tls: isTls };
}

export class HttpConnection {
  private socket: net.Socket | null = null;
  private connected = false;
  private chunks: Buffer[] = [];
  private received = 0;
  private headerEnd = -1;
  private status = 0;
  private needed = -1; // total bytes (header + body) once known
  private chunked = false;
  private untilClose = false;
  private callback: ResponseCallback | null = null;
  /** The request in flight takes its body as a view of the read buffer (see request). */
  private borrowing = false;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly endpoint: Endpoint) {}

  get busy(): boolean {
    return this.callback !== null;
  }

  /** Resolves once the TCP (and TLS) connection is up. */
  connect(): Promise<void> {
    const socket = this.socket ?? this.open();
    if (this.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const ok = () => { socket.off('error', ko); resolve(); };
      const ko = (err: Error) => { socket.off(this.endpoint.tls ? 'secureConnect' : 'connect', ok); reject(err); };
      socket.once(this.endpoint.tls ? 'secureConnect' : 'connect', ok);
      socket.once('error', ko);
    });
  }

  /**
   * Sends a request; `callback` gets its response. With `borrow`, a response that came in one
   * read is handed over as a view of the shared read buffer, valid only until the callback
   * returns (no copy of a 20 KB poll answer, and no garbage for it: a fan-out agent reads
   * thousands of them a second).
   */
  request(data: string | Buffer, callback: ResponseCallback, timeoutMs = 0, borrow = false): void {
    if (this.callback) throw new Error('a request is already in flight on this connection');
    this.callback = callback;
    this.borrowing = borrow;
    this.resetParser();
    const socket = this.socket ?? this.open();
    if (timeoutMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.finish(new Error(`no response within ${timeoutMs} ms`), null);
        this.destroy();
      }, timeoutMs);
    }
    socket.write(data);
  }

  destroy(): void {
    const socket = this.socket;
    this.socket = null;
    this.connected = false;
    socket?.destroy();
  }

  private open(): net.Socket {
    const { host, port } = this.endpoint;
    const socket = this.endpoint.tls
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host })
      : net.connect({
          host,
          port,
          onread: {
            buffer: READ_BUFFER,
            callback: (nread: number, buf: Buffer) => {
              if (!this.borrowing) {
                this.onData(Buffer.from(buf.subarray(0, nread)));
                return true;
              }
              const view = buf.subarray(0, nread);
              this.onData(view);
              // The next read overwrites the buffer: a response still incomplete keeps a copy.
              const i = this.chunks.indexOf(view);
              if (i >= 0) this.chunks[i] = Buffer.from(view);
              return true;
            },
          },
        });
    socket.setNoDelay(true);
    socket.on(this.endpoint.tls ? 'secureConnect' : 'connect', () => { this.connected = true; });
    if (this.endpoint.tls) socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.finish(err, null));
    socket.on('close', () => {
      if (this.socket === socket) {
        this.socket = null;
        this.connected = false;
      }
      if (this.untilClose && this.callback) {
        const all = Buffer.concat(this.chunks);
        this.finish(null, { status: this.status, body: all.subarray(this.headerEnd + 4) });
      } else {
        this.finish(new Error('connection closed by the server'), null);
      }
    });
    this.socket = socket;
    return socket;
  }

  private resetParser(): void {
    this.chunks = [];
    this.received = 0;
    this.headerEnd = -1;
    this.status = 0;
    this.needed = -1;
    this.chunked = false;
    this.untilClose = false;
  }

  private finish(err: Error | null, res: HttpResult | null): void {
    const callback = this.callback;
    if (!callback) return;
    this.callback = null;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    callback(err, res);
  }

  private onData(chunk: Buffer): void {
    if (!this.callback) return; // stray bytes after a timeout; the socket is being torn down
    this.chunks.push(chunk);
    this.received += chunk.length;
    if (this.headerEnd < 0 && !this.parseHeader()) return;
    if (this.untilClose) return;
    if (this.chunked) {
      if (!chunk.subarray(-CHUNKED_END.length).equals(CHUNKED_END) && chunk.length >= CHUNKED_END.length) return;
      const all = Buffer.concat(this.chunks);
      const body = decodeChunked(all, this.headerEnd + 4);
      if (body) this.finish(null, { status: this.status, body });
      return;
    }
    if (this.received < this.needed) return;
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.finish(null, { status: this.status, body: all.subarray(this.headerEnd + 4, this.needed) });
  }

  /** Returns false while the header is incomplete. */
  private parseHeader(): boolean {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    const buf = this.chunks[0];
    const end = buf.indexOf(HEADER_END);
    if (end < 0) return false;
    this.headerEnd = end;
    const head = buf.toString('latin1', 0, end).toLowerCase();
    this.status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:[ \t]*(\d+)/.exec(head);
    if (length) {
      this.needed = end + 4 + Number(length[1]);
    } else if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) {
      this.chunked = true;
    } else if (this.status === 204 || this.status === 304 || this.status < 200) {
      this.needed = end + 4;
    } else {
      this.untilClose = true;
    }
    return true;
  }
}

/** Decodes a complete chunked body starting at `offset`; null if incomplete. */
function decodeChunked(buf: Buffer, offset: number): Buffer | null {
  const parts: Buffer[] = [];
  let pos = offset;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', pos, 'latin1');
    if (lineEnd < 0) return null;
    const size = parseInt(buf.toString('latin1', pos, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('malformed chunked response');
    pos = lineEnd + 2;
    if (size === 0) return Buffer.concat(parts);
    if (pos + size + 2 > buf.length) return null;
    parts.push(buf.subarray(pos, pos + size));
    pos += size + 2;
  }
}
