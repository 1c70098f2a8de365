// Looking users up the way clients name them.
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
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
