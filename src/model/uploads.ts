// The words of uploaded files: how a name is made safe, which types a browser may show
// inline, and how an upload's URL is recognised in message content.

/**
 * Zulip's sanitize_name: NFKC, then only letters, digits, `_`, `.`, `-` and spaces are kept,
 * runs of spaces and dashes become one dash; an empty or dot-only result becomes
 * "uploaded-file". Case is kept.
 */
export function sanitizeFileName(name: string): string {
  let value = name.normalize('NFKC');
  value = value.replace(/[^\p{L}\p{N}_\s.-]/gu, '').trim();
  value = value.replace(/[-\s]+/gu, '-');
  if (value === '' || value === '.' || value === '..') return 'uploaded-file';
  return value;
}

/** Types a browser may show in place (Zulip's INLINE_MIME_TYPES); anything else is downloaded. */
export const INLINE_MIME_TYPES = new Set([
  'application/pdf',
  'audio/aac', 'audio/flac', 'audio/mp4', 'audio/mpeg', 'audio/ogg', 'audio/wav', 'audio/webm',
  'image/apng', 'image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp',
  'text/plain',
  'video/mp4', 'video/ogg', 'video/quicktime', 'video/webm',
]);

const TYPES_BY_EXTENSION: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  apng: 'image/apng', svg: 'image/svg+xml', bmp: 'image/bmp', tif: 'image/tiff', tiff: 'image/tiff', heic: 'image/heic',
  pdf: 'application/pdf', txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', htm: 'text/html',
  json: 'application/json', zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar',
  mp3: 'audio/mpeg', ogg: 'audio/ogg', oga: 'audio/ogg', wav: 'audio/wav', flac: 'audio/flac', m4a: 'audio/mp4', aac: 'audio/aac',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime', ogv: 'video/ogg',
};

/** The type a file is stored with: the one the client sent, or one guessed from the name. */
export function uploadContentType(sent: string, fileName: string): string {
  const type = sent.split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'application/octet-stream') return type;
  const ext = fileName.slice(fileName.lastIndexOf('.') + 1).toLowerCase();
  return TYPES_BY_EXTENSION[ext] ?? 'application/octet-stream';
}

/** `Content-Disposition` for a file: inline for safe types, else a download with its name (RFC 6266). */
export function contentDisposition(contentType: string, fileName: string, forceDownload = false): string {
  if (!forceDownload && INLINE_MIME_TYPES.has(contentType)) return 'inline';
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** An upload's path id: `<realm_id>/<one or two hex digits>/<random>/<name>`. */
export const PATH_ID_RE = /^(\d+)\/[0-9a-f]{1,2}\/[A-Za-z0-9_-]{6,}\/[^/]+$/;

/**
 * The path ids of this realm's uploads that links in a message point to (`/user_uploads/…`,
 * relative or on the realm's own URL).
 */
export function uploadPathIdsIn(links: string[], realmId: number, realmUrl: string): string[] {
  const out = new Set<string>();
  for (const link of links) {
    let path = link;
    if (path.startsWith(realmUrl)) path = path.slice(realmUrl.length);
    if (!path.startsWith('/user_uploads/')) continue;
    path = path.slice('/user_uploads/'.length).split(/[?#]/)[0]!;
    let decoded: string;
    try {
      decoded = path.split('/').map(decodeURIComponent).join('/');
    } catch {
      continue;
    }
    const m = PATH_ID_RE.exec(decoded);
    if (m && Number(m[1]) === realmId) out.add(decoded);
  }
  return [...out];
}
