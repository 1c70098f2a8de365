// HTTP Basic credentials from an Authorization header.
import { ApiError, unauthorized } from '../model/errors.js';

export interface BasicCredentials {
  username: string;
  password: string;
}

export function parseBasicAuth(header: string | undefined): BasicCredentials | null {
  if (!header) return null;
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== 'basic') {
    throw new ApiError('BAD_REQUEST', 'This endpoint requires HTTP basic authentication.', 400);
  }
  const decoded = Buffer.from(header.slice(space + 1).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unauthorized('Invalid authorization header for basic auth');
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
