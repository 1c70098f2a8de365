// Register section `realm_user`: every user of the realm as the caller sees them, and the
// caller's own account and abilities.
import type { RealmActor } from '../../realm/actor.js';
import { Role, type User } from '../../model/types.js';
import { apiEmail, avatarUrl, registerUserJson } from '../../views/users.js';
import { profileDataFor } from '../../views/profileFields.js';
import { JsonText } from '../../http/jsonText.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { canAccessAllUsers, canAccessUser } from '../../permissions/userAccess.js';
import type { RegisterArgs } from '../args.js';

export function realmUserSection(actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  const { config } = actor.services;
  const { state } = actor;
  // The lists are built as JSON text from per-user text kept between registers: ten
  // thousand user objects made and serialized per register were most of its cost.
  const active: string[] = [];
  const inactive: string[] = [];
  const ids = [...state.users.keys()].sort((a, b) => a - b);
  // Decided once, not per listed user.
  const seesEveryone = canAccessAllUsers(state, user);
  for (const id of ids) {
    const u = state.users.get(id)!;
    if (!seesEveryone && !canAccessUser(state, user, u)) continue;
    const values = state.profileValues.get(id);
    const profileData = values && values.size > 0 ? () => profileDataFor(state, id) : null;
    // The list a user is in says whether it is active.
    (u.isActive ? active : inactive).push(registerUserJson(config, actor.realm, user, u, args.client_gravatar, profileData));
  }
  const can = (name: string) => hasRealmPermission(state, user, name);
  const publicStreams = can('can_create_public_channel_group');
  const privateStreams = can('can_create_private_channel_group');
  const webPublicStreams = config.WEB_PUBLIC_STREAMS_ENABLED && can('can_create_web_public_channel_group');
  return {
    realm_users: new JsonText(`[${active.join(',')}]`),
    realm_non_active_users: new JsonText(`[${inactive.join(',')}]`),
    cross_realm_bots: [],
    user_id: user.id,
    email: apiEmail(config, actor.realm, user),
    delivery_email: user.deliveryEmail,
    full_name: user.fullName,
    avatar_source: user.avatarSource,
    avatar_url: avatarUrl(user),
    avatar_url_medium: avatarUrl(user, true),
    is_admin: user.role <= Role.ADMINISTRATOR,
    is_owner: user.role === Role.OWNER,
    is_moderator: user.role <= Role.MODERATOR,
    is_guest: user.role === Role.GUEST,
    can_create_public_streams: publicStreams,
    can_create_private_streams: privateStreams,
    can_create_web_public_streams: webPublicStreams,
    can_create_streams: publicStreams || privateStreams || webPublicStreams,
    can_invite_others_to_realm: can('can_invite_users_group'),
  };
}
