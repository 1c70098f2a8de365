// The web client's files, served by the front from memory: `npm run build` puts them in
// dist/web with content-hashed names under assets/ (cached for a year, immutable) and
// index.html (revalidated on every load), each with gzip and brotli copies made at build
// time, chosen by Accept-Encoding. Pages carry a Content-Security-Policy that allows scripts
// from this site only: no inline script runs, whatever a message contains.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { HttpRequest, HttpResponse } from 'uWebSockets.js';
import { emojiDataBody, emojiDataPath } from './emojiData.js';
import { endHead } from './headAnswer.js';

/** Where `npm run build` writes the client: dist/web beside dist/src. */
export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Rendered math (KaTeX) positions glyphs with style attributes; no style element or sheet
  // from elsewhere is allowed.
  "style-src-attr 'unsafe-inline'",
  // Images in messages may come from anywhere (links to pictures, avatars).
  "img-src 'self' data: blob: https: http:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip?: Buffer;
  br?: Buffer;
  cacheControl: string;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** An invitation email's link, `/join/<key>/`: the page, which shows the join form. */
const JOIN_PAGE = /^\/join\/[^/]+\/?$/;

/** Whether an Accept-Encoding header accepts a coding (a `;q=0` refuses it). */
export function accepts(header: string, coding: string): boolean {
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (name !== coding && name !== '*') continue;
    const q = params.map((x) => x.trim()).find((x) => x.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  }
  return false;
}

function readAssets(dir: string): Map<string, Asset> {
  const out = new Map<string, Asset>();
  if (!fs.existsSync(path.join(dir, 'index.html'))) return out;
  const walk = (sub: string) => {
    for (const e of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, e.name);
      if (e.isDirectory()) walk(rel);
      else if (!rel.endsWith('.gz') && !rel.endsWith('.br')) {
        const file = path.join(dir, rel);
        const read = (ext: string) => (fs.existsSync(file + ext) ? fs.readFileSync(file + ext) : undefined);
        out.set(`/${rel}`, {
          type: TYPES[path.extname(rel)] ?? 'application/octet-stream',
          body: fs.readFileSync(file),
          gzip: read('.gz'),
          br: read('.br'),
          cacheControl: rel.startsWith('assets/') ? IMMUTABLE : 'no-cache',
        });
      }
    }
  };
  walk('');
  return out;
}

export class WebAssets {
  private readonly files: Map<string, Asset>;
  private emoji: Asset | null = null;

  constructor(dir = WEB_DIR) {
    this.files = readAssets(dir);
  }

  get built(): boolean {
    return this.files.has('/index.html');
  }

  /** The file a GET path names, or undefined (the caller answers 404). */
  find(url: string): Asset | undefined {
    if (url === '/' || JOIN_PAGE.test(url)) return this.files.get('/index.html');
    if (url.startsWith('/static/generated/emoji/') && url === emojiDataPath()) {
      const body = Buffer.from(emojiDataBody());
      return (this.emoji ??= { type: TYPES['.json']!, body, gzip: gzipSync(body), cacheControl: IMMUTABLE });
    }
    if (url === '/index.html') return undefined; // one address for the page
    return this.files.get(url);
  }

  /**
   * Writes a found file; the body as the client's Accept-Encoding allows. A HEAD request
   * gets the same headers and length without the body.
   */
  write(res: HttpResponse, req: HttpRequest, asset: Asset): void {
    const head = req.getMethod() === 'head';
    const acceptEncoding = req.getHeader('accept-encoding');
    let body = asset.body;
    let encoding: string | undefined;
    if (asset.br && accepts(acceptEncoding, 'br')) [body, encoding] = [asset.br, 'br'];
    else if (asset.gzip && accepts(acceptEncoding, 'gzip')) [body, encoding] = [asset.gzip, 'gzip'];
    res.cork(() => {
      res.writeStatus('200 OK');
      res.writeHeader('Content-Type', asset.type);
      res.writeHeader('Cache-Control', asset.cacheControl);
      res.writeHeader('Vary', 'Accept-Encoding');
      res.writeHeader('X-Content-Type-Options', 'nosniff');
      if (encoding) res.writeHeader('Content-Encoding', encoding);
      if (asset.type.startsWith('text/html')) {
        res.writeHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
        res.writeHeader('X-Frame-Options', 'DENY');
        res.writeHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
      }
      if (head) {
        endHead(res, body.length);
      } else {
        res.end(body);
      }
    });
  }
}
