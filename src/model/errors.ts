// Typed API errors. Actions throw these; the http layer turns them into the JSON envelope.

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (msg: string, extra: Record<string, unknown> = {}) =>
  new ApiError('BAD_REQUEST', msg, 400, extra);

export const missingArgument = (name: string) =>
  new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name });

export const invalidArgument = (name: string, msg?: string) =>
  new ApiError('BAD_REQUEST', msg ?? `Invalid ${name}`, 400, { var_name: name });

export const unauthorized = (msg = 'Not logged in: API authentication or user session required') =>
  new ApiError('UNAUTHORIZED', msg, 401, {}, { 'WWW-Authenticate': 'Basic realm="zulip"' });

/** The client left before the answer (nobody reads it; nginx's 499 in the logs). */
export const requestCancelled = () => new ApiError('REQUEST_CANCELLED', 'Client closed the request', 499);

export const accessDenied = (msg = 'Access denied') => new ApiError('BAD_REQUEST', msg, 403);

export const notFound = (msg = 'Not found') => new ApiError('BAD_REQUEST', msg, 404);

export const insufficientPermission = () => badRequest('Insufficient permission');

export const mustBeOwner = () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400);

export const mustBeAdmin = () =>
  new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400);
