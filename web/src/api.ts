// Requests to the server's /json API: the session cookie goes along by itself, and every
// request that is not a GET carries the CSRF token from its cookie as X-CSRFToken.
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export type Params = Record<string, unknown>;

/** The CSRF token the login left in its cookie (`__Host-` prefixed over HTTPS). */
export function csrfToken(): string {
  for (const part of document.cookie.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === 'csrftoken' || name === '__Host-csrftoken') return rest.join('=');
  }
  return '';
}

function encode(params: Params): URLSearchParams {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    form.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  }
  return form;
}

let onUnauthorized: () => void = () => {};
/** Called when the server says the session is gone (401 on /json). */
export function whenLoggedOut(fn: () => void): void {
  onUnauthorized = fn;
}

export async function api<T = Record<string, unknown>>(method: string, path: string, params: Params = {}, signal?: AbortSignal): Promise<T> {
  const form = encode(params);
  const inQuery = method === 'GET';
  const url = `/json${path}${inQuery && [...form].length ? `?${form}` : ''}`;
  const headers: Record<string, string> = {};
  if (!inQuery) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    headers['X-CSRFToken'] = csrfToken();
  }
  return answer<T>(path, await fetch(url, { method, headers, body: inQuery ? undefined : form, credentials: 'same-origin', signal }));
}

/** POST /user_uploads: the file as multipart form data; the server answers its URL and name. */
export async function uploadFile(file: File): Promise<{ url: string; filename: string }> {
  const form = new FormData();
  form.append('file', file, file.name);
  const res = await fetch('/json/user_uploads', { method: 'POST', headers: { 'X-CSRFToken': csrfToken() }, body: form, credentials: 'same-origin' });
  return answer<{ url: string; filename: string }>('/user_uploads', res);
}

async function answer<T>(path: string, res: Response): Promise<T> {
  let body: Record<string, unknown>;
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    throw new ApiError(res.status, 'BAD_RESPONSE', `Unexpected answer (${res.status})`);
  }
  if (!res.ok || body.result !== 'success') {
    if (res.status === 401 && path !== '/login') onUnauthorized();
    throw new ApiError(res.status, String(body.code ?? 'BAD_REQUEST'), String(body.msg ?? `Error ${res.status}`), body);
  }
  return body as T;
}

export const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
