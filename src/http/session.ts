// The web client's cookies, as Zulip's web app has them: an HttpOnly session cookie and a
// CSRF token cookie the page reads and sends back as X-CSRFToken. Over HTTPS both carry the
// Secure flag and the `__Host-` prefix (bound to this exact host, path `/`, no Domain), so a
// sibling subdomain (another realm) can neither read nor set them. The front reads them from
// requests; the worker's login and logout write them.
import type { Config } from '../config.js';

/** How long a session lasts from login (Zulip's SESSION_COOKIE_AGE: two weeks). */
export const SESSION_SECONDS = 14 * 24 * 3600;

const secure = (config: Pick<Config, 'EXTERNAL_URI_SCHEME'>) => config.EXTERNAL_URI_SCHEME === 'https://';

export function sessionCookieName(config: Pick<Config, 'EXTERNAL_URI_SCHEME'>): string {
  return secure(config) ? '__Host-sessionid' : 'sessionid';
}

export function csrfCookieName(config: Pick<Config, 'EXTERNAL_URI_SCHEME'>): string {
  return secure(config) ? '__Host-csrftoken' : 'csrftoken';
}

/** One cookie's value from a Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

function cookie(config: Pick<Config, 'EXTERNAL_URI_SCHEME'>, name: string, value: string, maxAge: number, httpOnly: boolean): string {
  return [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${maxAge}`,
    'SameSite=Lax',
    ...(httpOnly ? ['HttpOnly'] : []),
    ...(secure(config) ? ['Secure'] : []),
  ].join('; ');
}

/** Set-Cookie values that start a session. The values are URL-safe base64, never quoted. */
export function sessionCookies(config: Pick<Config, 'EXTERNAL_URI_SCHEME'>, sessionId: string, csrfToken: string): string[] {
  return [
    cookie(config, sessionCookieName(config), sessionId, SESSION_SECONDS, true),
    cookie(config, csrfCookieName(config), csrfToken, SESSION_SECONDS, false),
  ];
}

/** Set-Cookie values that end a session in the browser. */
export function clearedSessionCookies(config: Pick<Config, 'EXTERNAL_URI_SCHEME'>): string[] {
  return [cookie(config, sessionCookieName(config), '', 0, true), cookie(config, csrfCookieName(config), '', 0, false)];
}

/** What the worker needs of a /json request's headers to check its session and CSRF token. */
export function jsonRequestFields(
  config: Pick<Config, 'EXTERNAL_URI_SCHEME'>,
  header: (name: string) => string,
): { prefix: 'json'; sessionId?: string; csrfToken?: string; origin?: string; host?: string } {
  return {
    prefix: 'json',
    sessionId: readCookie(header('cookie'), sessionCookieName(config)),
    csrfToken: header('x-csrftoken') || undefined,
    origin: header('origin') || undefined,
    host: header('host') || undefined,
  };
}
