// The web client's files as the front serves them: the page at `/` with a policy that
// forbids inline scripts and no caching, content-hashed assets cached for good, each body in
// the encoding the browser accepts; the session cookies' flags over HTTPS.
import { describe, expect, it } from 'vitest';
import zlib from 'node:zlib';
import http from 'node:http';
import { port } from '../helpers/client.js';
import { accepts } from '../../src/http/static.js';
import { csrfCookieName, readCookie, sessionCookieName, sessionCookies } from '../../src/http/session.js';

/** A raw GET that keeps the body as bytes (the helper would parse JSON). */
function get(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: port(), path, method, headers: { Host: `localhost:${port()}`, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the page and its files', () => {
  it('serves the page with a policy against inline scripts, revalidated on every load', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(r.headers['cache-control']).toBe('no-cache');
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("object-src 'none'");
    expect(r.headers['x-frame-options']).toBe('DENY');
    const html = r.body.toString();
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    // Only scripts with a source: nothing inline.
    expect(html.match(/<script\b[^>]*>/g)!.every((tag) => / src="/.test(tag))).toBe(true);
  });

  it('caches content-hashed assets for a year and picks brotli, gzip or plain by Accept-Encoding', async () => {
    const page = (await get('/')).body.toString();
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(page)![1]!;
    const plain = await get(script);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding');
    const br = await get(script, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    const gz = await get(script, { 'Accept-Encoding': 'gzip, br;q=0' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).equals(plain.body)).toBe(true);
    expect(br.body.length).toBeLessThan(plain.body.length);
  });

  it('answers HEAD of the page and its files as GET, without the body', async () => {
    const page = await get('/');
    const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(page.body.toString())![1]!;
    for (const path of ['/', script]) {
      const full = await get(path, { 'Accept-Encoding': 'gzip' });
      const head = await get(path, { 'Accept-Encoding': 'gzip' }, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const name of ['content-type', 'cache-control', 'content-security-policy', 'content-encoding']) expect(head.headers[name]).toEqual(full.headers[name]);
      expect(Number(head.headers['content-length'])).toBe(full.body.length);
    }
    // The connection stays usable after a HEAD (keep-alive): the next request is answered.
    expect((await get('/', {}, 'HEAD')).status).toBe(200);
  });

  it('answers other paths with the JSON 404, the page only at /', async () => {
    for (const path of ['/assets/nothing.js', '/index.html', '/static/generated/emoji/emoji_api.0000.json', '/login']) {
      const r = await get(path);
      expect(r.status).toBe(404);
      expect(JSON.parse(r.body.toString())).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    }
  });
});

describe('helpers of the front', () => {
  it('reads Accept-Encoding with q-values', () => {
    expect(accepts('gzip, deflate, br', 'br')).toBe(true);
    expect(accepts('gzip;q=1.0, br;q=0', 'br')).toBe(false);
    expect(accepts('*', 'gzip')).toBe(true);
    expect(accepts('', 'gzip')).toBe(false);
    expect(accepts('identity', 'gzip')).toBe(false);
  });

  it('makes Secure, host-bound cookies over HTTPS', () => {
    const https = { EXTERNAL_URI_SCHEME: 'https://' as const };
    expect(sessionCookieName(https)).toBe('__Host-sessionid');
    expect(csrfCookieName(https)).toBe('__Host-csrftoken');
    const [session, csrf] = sessionCookies(https, 'abc', 'def');
    expect(session).toBe('__Host-sessionid=abc; Path=/; Max-Age=1209600; SameSite=Lax; HttpOnly; Secure');
    expect(csrf).toBe('__Host-csrftoken=def; Path=/; Max-Age=1209600; SameSite=Lax; Secure');
    expect(readCookie('a=1; __Host-sessionid=abc; b=2', '__Host-sessionid')).toBe('abc');
    expect(readCookie('sessionid=abc', '__Host-sessionid')).toBeUndefined();
  });
});
