// The shape of an endpoint: its route, who may call it, its parameters and its handler.
// Handlers read from the actor's memory and call actions for every change.
import type { Args, ParamSpec } from '../http/params.js';
import type { RealmActor } from '../realm/actor.js';
import type { ApiRequest, FileToServe, UploadedFile } from '../http/contract.js';
import type { User } from '../model/types.js';
import type { SessionRow } from '../db/sessions.js';
import type { JsonText } from '../http/jsonText.js';

/**
 * `webhook`: an incoming webhook, whose caller is named by an `api_key` parameter (or Basic
 * credentials); its unknown parameters are not reported (they are the tool's options).
 */
export type AuthMode = 'user' | 'optional' | 'none' | 'webhook';
export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Ctx<P extends ParamSpec, A extends AuthMode> {
  actor: RealmActor;
  user: A extends 'user' | 'webhook' ? User : User | null;
  args: Args<P>;
  req: ApiRequest;
  /** The web client's session, when the request came on /json with a session cookie. */
  session?: SessionRow;
  /** Set-Cookie values the response carries (login, logout). */
  cookies: string[];
  /** Answers with a stored file instead of a JSON body (the front streams it). */
  serve: (file: FileToServe) => void;
}

export type Body = Record<string, unknown>;

/**
 * What a handler answers: the fields of the success body, or their JSON text made ahead (an
 * object's text, whose members follow the envelope's). A handler that needs no await may
 * answer without a promise.
 */
export type Answer = Body | JsonText;

export interface Endpoint {
  method: Method;
  path: string;
  auth: AuthMode;
  /**
   * `json`: served only under /json (the web client's login and logout); `file`: only as a
   * file under /user_uploads/ (see api/uploads.ts), never under an API prefix.
   */
  only?: 'json' | 'file';
  params: ParamSpec;
  handler: (ctx: Ctx<ParamSpec, AuthMode>) => Answer | Promise<Answer>;
}

export function endpoint<P extends ParamSpec, A extends AuthMode>(def: {
  method: Method;
  path: string;
  auth: A;
  only?: 'json' | 'file';
  params: P;
  handler: (ctx: Ctx<P, A>) => Answer | Promise<Answer>;
}): Endpoint {
  return def as unknown as Endpoint;
}

/** POST of a multipart upload with no other parameters: the files go to `upload` as they came. */
export function fileUploadEndpoint(
  path: string,
  upload: (actor: RealmActor, user: User, files: UploadedFile[] | undefined) => Promise<Body>,
): Endpoint {
  return endpoint({
    method: 'POST',
    path,
    auth: 'user',
    params: {},
    handler: ({ actor, user, req }) => upload(actor, user, req.files),
  });
}
