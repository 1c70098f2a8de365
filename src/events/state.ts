// The initial state of POST /register, one section per fetch_event_types value.
import type { RealmActor } from '../realm/actor.js';
import { Role, type User } from '../realm/types.js';
import { formatUser, avatarUrl } from '../realm/userView.js';
import { realmUrl } from '../realm/urls.js';
import type { NarrowTerm, RegisterArgs } from './register.js';
import { REALM_LIMITS } from './limits.js';

type Section = (actor: RealmActor, user: User, args: RegisterArgs, narrow: NarrowTerm[]) => Record<string, unknown>;

const sections: Record<string, Section> = {
  realm(actor) {
    const { config } = actor.services;
    const url = realmUrl(config, actor.realm);
    return {
      realm_name: actor.realm.name,
      realm_description: actor.realm.description,
      realm_url: url,
      realm_uri: url,
      realm_date_created: Math.floor(actor.realm.dateCreated.getTime() / 1000),
      realm_web_public_access_enabled: actor.realm.settings.enable_spectator_access,
      realm_enable_spectator_access: actor.realm.settings.enable_spectator_access,
      realm_waiting_period_threshold: actor.realm.settings.waiting_period_threshold,
      ...REALM_LIMITS,
    };
  },
  realm_user(actor, user, args) {
    const { config } = actor.services;
    const all = [...actor.state.users.values()];
    const view = (u: User) => {
      const v = formatUser(config, actor.realm, user, u, { clientGravatar: args.client_gravatar });
      delete v.is_active;
      return v;
    };
    return {
      realm_users: all.filter((u) => u.isActive && !u.isBot).map(view),
      realm_non_active_users: all.filter((u) => !u.isActive && !u.isBot).map(view),
      cross_realm_bots: [],
      user_id: user.id,
      email: formatUser(config, actor.realm, user, user, { clientGravatar: false }).email,
      delivery_email: user.deliveryEmail,
      full_name: user.fullName,
      avatar_source: user.avatarSource,
      avatar_url: avatarUrl(user),
      avatar_url_medium: avatarUrl(user, true),
      is_admin: user.role <= Role.ADMINISTRATOR,
      is_owner: user.role === Role.OWNER,
      is_moderator: user.role <= Role.MODERATOR,
      is_guest: user.role === Role.GUEST,
    };
  },
};

export function initialState(
  actor: RealmActor,
  user: User,
  fetchTypes: Set<string> | null,
  args: RegisterArgs,
  narrow: NarrowTerm[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, section] of Object.entries(sections)) {
    if (fetchTypes === null || fetchTypes.has(name)) Object.assign(out, section(actor, user, args, narrow));
  }
  return out;
}
