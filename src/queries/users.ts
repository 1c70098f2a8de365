// Looking users up the way clients name them.
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import { badRequest } from '../model/errors.js';
import { fakeEmailDomain } from '../http/urls.js';
import { apiEmailIsReal, canSeeRealEmail } from '../permissions/email.js';

/** A user by the address a client uses: the API email, or a real email the caller may see. */
export function userByEmail(actor: RealmActor, viewer: User, email: string): User | undefined {
  const placeholder = /^user(\d+)@(.+)$/i.exec(email);
  if (placeholder && placeholder[2]!.toLowerCase() === fakeEmailDomain(actor.services.config, actor.realm)) {
    const u = actor.user(Number(placeholder[1]));
    if (u) return u;
  }
  const u = actor.state.userByEmail(email);
  return u && (apiEmailIsReal(u) || canSeeRealEmail(viewer, u)) ? u : undefined;
}

/**
 * The user a path like `/users/{x}` names: an integer id, a visible real email, or a
 * placeholder address (Zulip's access_user_by_email rules). "No such user" otherwise.
 */
export function userByPathKey(actor: RealmActor, viewer: User | null, key: string): User {
  const { config } = actor.services;
  if (/^\d+$/.test(key)) {
    const user = actor.user(Number(key));
    if (!user) throw badRequest('No such user');
    return user;
  }
  const placeholder = /^user(\d+)@(.+)$/i.exec(key);
  if (placeholder && placeholder[2]!.toLowerCase() === fakeEmailDomain(config, actor.realm)) {
    const user = actor.user(Number(placeholder[1]));
    if (user) return user;
  }
  const byReal = actor.state.userByEmail(key);
  if (byReal && (canSeeRealEmail(viewer, byReal) || apiEmailIsReal(byReal))) return byReal;
  throw badRequest('No such user');
}
