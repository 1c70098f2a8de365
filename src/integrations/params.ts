// Reading an integration's URL options, with the messages of the API's other parameters.
import { ApiError } from '../model/errors.js';

/** A JSON boolean option (`ignore_private_repositories=true`). */
export function boolParam(params: Record<string, string>, name: string, fallback: boolean): boolean {
  const raw = params[name];
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ApiError('BAD_REQUEST', `${name} is not a boolean`, 400, { var_name: name });
}
