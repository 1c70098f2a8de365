// The shipped reverse-proxy configuration (cluster/nginx/chat.conf) in front of a server,
// run by Debian's nginx when it is installed (.ci/run installs it): TLS ends at nginx, HTTP/1.0
// clients and HEAD requests get well-formed answers, a 16 KB cookie and a body above nginx's
// own 1 MB default pass, and X-Forwarded-For is believed only from the proxy's address (seen
// through the per-address rate limit). nginx connects from 127.0.0.2, the only trusted proxy;
// clients come from other loopback addresses.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRealm, httpRequest, type Client } from '../helpers/client.js';
import { freePort } from '../../scripts/freePort.js';
import { ownServer, PortClient } from '../api/events-support.js';

const NGINX = '/usr/sbin/nginx';
const installed = existsSync(NGINX);

let dir = '';
let nginx: ChildProcess | undefined;
let server: Awaited<ReturnType<typeof ownServer>>;
let owner: Client;
let tlsPort = 0;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A request through nginx over TLS, from a given loopback address. */
function viaProxy(opts: { method?: string; path: string; from?: string; headers?: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1', port: tlsPort, method: opts.method ?? 'GET', path: opts.path, rejectUnauthorized: false,
        localAddress: opts.from ?? '127.0.0.1', agent: false,
        headers: { Host: `${owner.subdomain}.localhost`, ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const basic = (c: Client) => 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((r) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), r(true)));
      s.on('error', () => r(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nginx did not listen:\n${readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
}

beforeAll(async () => {
  if (!installed) return;
  ({ owner } = await newRealm('nginx'));
  server = await ownServer({ TRUSTED_PROXIES: '127.0.0.2', RATE_LIMITS: 'api_by_ip=3/60' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'chat-nginx-'));
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, d));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost',
    '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')], { stdio: 'ignore' });
  tlsPort = await freePort();
  const plainPort = await freePort();
  const site = readFileSync('cluster/nginx/chat.conf', 'utf8')
    .replace('server 127.0.0.1:9991;', `server 127.0.0.1:${server.port};`)
    .replace(/^\s*listen \[::\].*$/gm, '')
    .replace('listen 80;', `listen 127.0.0.1:${plainPort};`)
    .replace('listen 443 ssl;', `listen 127.0.0.1:${tlsPort} ssl;`)
    .replace('/etc/ssl/certs/chat.example.com.pem', path.join(dir, 'cert.pem'))
    .replace('/etc/ssl/private/chat.example.com.key', path.join(dir, 'key.pem'))
    .replace('proxy_pass http://chat_fronts;', 'proxy_pass http://chat_fronts;\n        proxy_bind 127.0.0.2;');
  expect(site).toContain(`server 127.0.0.1:${server.port};`);
  writeFileSync(path.join(dir, 'site.conf'), site);
  writeFileSync(path.join(dir, 'nginx.conf'), `
${process.getuid?.() === 0 ? 'user root;' : ''}
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/site.conf;
}
`);
  nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], { stdio: 'ignore' });
  await waitForPort(tlsPort);
}, 60_000);

afterAll(async () => {
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((r) => nginx!.once('exit', r));
    nginx.kill('SIGQUIT');
    await exited;
  }
  await server?.stop();
  if (dir && !process.env.KEEP_NGINX_DIR) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!installed)('nginx with the shipped configuration', () => {
  it('ends TLS and passes requests over HTTP/1.1 with the realm from Host', async () => {
    const r = await viaProxy({ path: '/api/v1/users/me', headers: { Authorization: basic(owner) } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ result: 'success', user_id: owner.userId });
  });

  it('answers an HTTP/1.0 client (which the front alone would refuse with 505)', async () => {
    const text = await new Promise<string>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: tlsPort, rejectUnauthorized: false }, () => {
        s.write(`GET /api/v1/server_settings HTTP/1.0\r\nHost: ${owner.subdomain}.localhost\r\n\r\n`);
      });
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString('utf8')));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ result: 'success' });
    const direct = await new Promise<string>((resolve, reject) => {
      const s = net.connect(server.port, '127.0.0.1', () => s.write('GET /api/v1/server_settings HTTP/1.0\r\nHost: localhost\r\n\r\n'));
      let out = '';
      s.on('data', (d: Buffer) => (out += d.toString('utf8')));
      s.on('end', () => resolve(out));
      s.on('close', () => resolve(out));
      s.on('error', reject);
    });
    expect(direct).toMatch(/^HTTP\/1\.1 505/);
  });

  it('answers HEAD like GET without a body, directly and through the proxy', async () => {
    const get = await httpRequest(server.port, { method: 'GET', path: '/api/v1/users/me', host: `${owner.subdomain}.localhost`, headers: { Authorization: basic(owner) } });
    const head = await httpRequest(server.port, { method: 'HEAD', path: '/api/v1/users/me', host: `${owner.subdomain}.localhost`, headers: { Authorization: basic(owner) } });
    expect(head.status).toBe(200);
    expect(head.body).toEqual({ __text: '' });
    expect(head.headers['content-type']).toBe('application/json');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(get.body)) + 1));
    const proxied = await viaProxy({ method: 'HEAD', path: '/api/v1/users/me', headers: { Authorization: basic(owner) } });
    expect(proxied.status).toBe(200);
    expect(proxied.text).toBe('');
    // A path served only by POST answers HEAD as it answers GET.
    expect((await viaProxy({ method: 'HEAD', path: '/api/v1/messages/render', headers: { Authorization: basic(owner) } })).status).toBe(405);
  });

  it('passes a 16 KB cookie header and a body larger than nginx’s default limit', async () => {
    const cookie = `big=${'c'.repeat(16 * 1024)}`;
    const r = await viaProxy({ path: '/api/v1/users/me', headers: { Authorization: basic(owner), Cookie: cookie } });
    expect(r.status).toBe(200);
    const direct = await httpRequest(server.port, { method: 'GET', path: '/api/v1/users/me', host: `${owner.subdomain}.localhost`, headers: { Authorization: basic(owner), Cookie: cookie } });
    expect(direct.status).toBe(200);
    const content = 'x'.repeat(1_500_000);
    const big = await viaProxy({
      method: 'POST', path: '/api/v1/messages/render', body: `content=${content}`,
      headers: { Authorization: basic(owner), 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(big.status).toBeLessThan(500);
    expect(big.status).not.toBe(413);
    expect(JSON.parse(big.text).result).toBeDefined();
  });

  it('believes X-Forwarded-For only from the proxy', async () => {
    const anonymous = (from: string, forged?: string) =>
      viaProxy({ path: '/api/v1/server_settings', from, headers: forged ? { 'X-Forwarded-For': forged } : {} });
    // Through nginx, each client address has its own budget of 3, whatever it claims.
    for (let i = 0; i < 3; i++) expect((await anonymous('127.0.0.3', '10.9.9.9')).status).toBe(200);
    expect((await anonymous('127.0.0.3', '10.9.9.9')).status).toBe(429);
    expect((await anonymous('127.0.0.4')).status).toBe(200);
    // Directly, a client that is not the proxy cannot borrow another address's budget.
    const direct = PortClient.of(server.port, owner.anonymous());
    const forged = await httpRequest(server.port, {
      method: 'GET', path: '/api/v1/server_settings', host: direct.host, headers: { 'X-Forwarded-For': '127.0.0.4' },
    });
    expect(forged.status).toBe(200);
    // 127.0.0.4 spent one through the proxy; the forged request went to 127.0.0.1's budget.
    expect((await anonymous('127.0.0.4')).status).toBe(200);
    expect((await anonymous('127.0.0.4')).status).toBe(200);
    expect((await anonymous('127.0.0.4')).status).toBe(429);
  });
});
