// Helpers of the jobs tests: a fake push relay (servers of their own: helpers/ownServer.ts).
import http from 'node:http';
import net from 'node:net';

export interface RelayRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  status: number;
  at: number;
}

/** A push relay that records every request; `failNext(n)` makes the next n answer 503. */
export class FakeRelay {
  readonly requests: RelayRequest[] = [];
  private failures = 0;
  private readonly server: http.Server;

  private constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = this.failures > 0 ? 503 : 200;
        if (this.failures > 0) this.failures--;
        let body: RelayRequest['body'];
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = { __unparsed: Buffer.concat(chunks).toString('utf8') };
        }
        this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, status, at: Date.now() });
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(status === 200 ? { result: 'success', msg: '' } : { result: 'error', msg: 'relay down' }));
      });
    });
  }

  static async start(): Promise<FakeRelay> {
    const relay = new FakeRelay();
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  failNext(n: number): void {
    this.failures = n;
  }

  /** Requests about one message, delivered (2xx) or all. */
  about(messageId: number, delivered = true): RelayRequest[] {
    return this.requests.filter((r) => r.body.payload?.zulip_message_id === messageId && (!delivered || r.status === 200));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
