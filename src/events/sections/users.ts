// Register section `realm_user`: every user of the realm as the caller sees them, and the
// caller's own account and abilities.
import type { RealmActor } from '../../realm/actor.js';
import { Role, type User } from '../../realm/types.js';
import { apiEmail, avatarUrl, formatUser } from '../../realm/userView.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { profileDataFor } from '../../realm/profileFieldView.js';
import { canAccessAllUsers, canAccessUser } from '../audience.js';
import type { RegisterArgs } from '../register.js';

export function realmUserSection(actor: RealmActor, user: User, args: RegisterArgs): Record<string, unknown> {
  const { config } = actor.services;
  const { state } = actor;
  const active: Record<string, unknown>[] = [];
  const inactive: Record<string, unknown>[] = [];
  const ids = [...state.users.keys()].sort((a, b) => a - b);
  // Decided once, not per listed user.
  const seesEveryone = canAccessAllUsers(state, user);
  for (const id of ids) {
    const u = state.users.get(id)!;
    if (!seesEveryone && !canAccessUser(state, user, u)) continue;
    const view = formatUser(config, actor.realm, user, u, {
      clientGravatar: args.client_gravatar,
      includeCustomProfileFields: true,
      profileData: u.isBot ? undefined : profileDataFor(state, u.id),
      // The list a user is in says whether it is active.
      omitIsActive: true,
    });
    (u.isActive ? active : inactive).push(view);
  }
  const can = (name: string) => hasRealmPermission(state, user, name);
  const publicStreams = can('can_create_public_channel_group');
  const privateStreams = can('can_create_private_channel_group');
  const webPublicStreams = config.WEB_PUBLIC_STREAMS_ENABLED && can('can_create_web_public_channel_group');
  return {
    realm_users: active,
    realm_non_active_users: inactive,
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
    is_billing_admin: false,
    can_create_public_streams: publicStreams,
    can_create_private_streams: privateStreams,
    can_create_web_public_streams: webPublicStreams,
    can_create_streams: publicStreams || privateStreams || webPublicStreams,
    can_subscribe_other_users: can('can_add_subscribers_group'),
    can_invite_others_to_realm: can('can_invite_users_group'),
  };
}
