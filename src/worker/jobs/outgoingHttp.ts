// The HTTP call of an outgoing webhook, to a URL a realm member chose: it must not become a
// way into the server's own network. Every address the call connects to is checked, after
// DNS resolution (a name that resolves to a private address is refused, and the check is on
// the address actually used, so a rebinding name cannot slip through), on every redirect hop.
// OUTGOING_WEBHOOK_ALLOW_PRIVATE=true lifts the check (a service on the same network).
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';
import type { OutgoingRequest, ServiceAnswer } from '../../integrations/outgoing.js';

/** Networks a service may not be on: loopback, private, link-local, shared, reserved, multicast. */
const BLOCKED = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128],
  ['::1', 128],
  // NAT64 and 6to4 addresses can lead to any IPv4 address (IPv4-mapped ones are checked as IPv4).
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(prefix, bits, 'ipv6');
}

/** Whether an IP address is one a service may not be on (anything not an IP address is). */
export function isDisallowedAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family !== 6) return true;
  // The URL parser writes IPv6 addresses in one canonical form (an IPv4-mapped one as ::ffff:7f00:1).
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped) {
    const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
    return BLOCKED.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
  }
  return BLOCKED.check(canonical, 'ipv6');
}

const DISALLOWED = 'ERR_OUTGOING_WEBHOOK_DISALLOWED_ADDRESS';

function disallowedError(host: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${host} resolves only to disallowed addresses`);
  err.code = DISALLOWED;
  return err;
}

/** dns.lookup that drops disallowed addresses (and fails when none is left). */
function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const usable = (addresses as dns.LookupAddress[]).filter((a) => allowPrivate || !isDisallowedAddress(a.address));
      if (usable.length === 0) return callback(disallowedError(hostname), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
      return callback(null, usable[0]!.address, usable[0]!.family);
    });
  };
}

export interface CallOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  userAgent: string;
  /** The most of an answer kept (the rest is not read). */
  maxBytes: number;
}

type Hop = { answer: ServiceAnswer } | { redirect: string; status: number };

const REDIRECTS = [301, 302, 303, 307, 308];
const MAX_REDIRECTS = 5;

function hop(url: URL, method: string, body: string | undefined, contentType: string, o: CallOptions): Promise<Hop> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return Promise.resolve({ answer: { kind: 'connection_error' } });
  // An address in the URL is connected to without a lookup: check it here.
  if (net.isIP(host) && !o.allowPrivate && isDisallowedAddress(host)) return Promise.resolve({ answer: { kind: 'disallowed' } });
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    const finish = (h: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(h);
    };
    const headers: Record<string, string | number> = { 'User-Agent': o.userAgent };
    if (body !== undefined) Object.assign(headers, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
    const lib = url.protocol === 'https:' ? https : http;
    const req = lib.request(url, { method, headers, agent: false, lookup: guardedLookup(o.allowPrivate) }, (res) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.includes(status) && location) {
        res.resume();
        return finish({ redirect: location, status });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        if (size + c.length > o.maxBytes) {
          chunks.push(c.subarray(0, o.maxBytes - size));
          size = o.maxBytes;
          res.destroy();
          return;
        }
        size += c.length;
        chunks.push(c);
      });
      const done = () => finish(timedOut ? { answer: { kind: 'timeout' } } : { answer: { kind: 'response', status, body: Buffer.concat(chunks) } });
      res.on('end', done);
      res.on('close', done);
      res.on('error', () => undefined);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timed out'));
    }, o.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === DISALLOWED) finish({ answer: { kind: 'disallowed' } });
      else finish({ answer: { kind: timedOut ? 'timeout' : 'connection_error' } });
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/**
 * POSTs the request to the service and says how it ended. Redirects are followed (a few) with
 * each target checked like the first: 307/308 repeat the POST, the others become a GET.
 */
export async function callService(url: string, request: OutgoingRequest, o: CallOptions): Promise<ServiceAnswer> {
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    return { kind: 'connection_error' };
  }
  let method = 'POST';
  let body: string | undefined = request.body;
  for (let i = 0; ; i++) {
    const h = await hop(current, method, body, request.contentType, o);
    if ('answer' in h) return h.answer;
    if (i === MAX_REDIRECTS) return { kind: 'response', status: h.status, body: new Uint8Array() };
    try {
      current = new URL(h.redirect, current);
    } catch {
      return { kind: 'response', status: h.status, body: new Uint8Array() };
    }
    if (h.status === 303 || ((h.status === 301 || h.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
  }
}
