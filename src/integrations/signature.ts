// Signed payloads: with a `webhook_secret` in the integration URL (how Zulip configures a
// webhook's secret), the request must carry the tool's HMAC of the exact body bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../model/errors.js';
import type { WebhookRequest } from './types.js';

const failed = () => new ApiError('BAD_REQUEST', 'Webhook signature verification failed.', 400);

/**
 * Checks `header` (e.g. GitHub's `X-Hub-Signature-256: sha256=<hex>`) against the HMAC of the
 * body under the URL's `webhook_secret`; nothing to check when the URL has no secret.
 */
export function checkSignature(req: WebhookRequest, header: string, algorithm: 'sha256' | 'sha1', prefix: string): void {
  const secret = req.params.webhook_secret;
  if (secret === undefined) return;
  const given = req.headers[header.toLowerCase()];
  if (given === undefined) throw failed();
  const expected = prefix + createHmac(algorithm, Buffer.from(secret, 'utf8')).update(req.raw).digest('hex');
  const a = Buffer.from(given.trim().toLowerCase());
  const b = Buffer.from(expected);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw failed();
}
