// For the tests of a register that fails after making its queue: a register the client can
// leave before the answer, and the ids of the queues the server logged as dropped.
import http from 'node:http';
import { encodeForm, type Params } from './client.js';

export interface Caller {
  port: number;
  /** The Host header (the realm's subdomain and the port). */
  host: string;
  email: string;
  apiKey: string;
}

export type RegisterReply = { status: number; body: Record<string, unknown> } | 'left';

/** A POST /register on a connection of its own; `leave` closes it before the answer. */
export function leavableRegister(c: Caller, params: Params): { reply: Promise<RegisterReply>; leave: () => void } {
  const body = encodeForm(params);
  const req = http.request({
    host: '127.0.0.1', port: c.port, method: 'POST', path: '/api/v1/register', agent: false,
    headers: {
      Host: c.host,
      Authorization: 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64'),
      'Content-Type': 'application/x-www-form-urlencoded',
      'Content-Length': String(Buffer.byteLength(body)),
    },
  });
  let left = false;
  const reply = new Promise<RegisterReply>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> }));
    });
    req.on('error', (err) => (left ? resolve('left') : reject(err)));
  });
  req.end(body);
  return {
    reply,
    leave() {
      left = true;
      req.destroy();
    },
  };
}

/** Ids of the queues a server's log (LOG_LEVEL=info) names as dropped, oldest first. */
export function droppedQueueIds(log: string): string[] {
  const ids: string[] = [];
  for (const line of log.split('\n')) {
    if (!line.includes('queue dropped')) continue;
    const entry = JSON.parse(line) as { queueId?: string };
    if (entry.queueId) ids.push(entry.queueId);
  }
  return ids;
}
