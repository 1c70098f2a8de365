// POST /register without credentials: a spectator's view of an organization that allows
// public access (Zulip's logged-out "web-public" mode). As Zulip: no event queue
// (`queue_id` null, no `last_event_id`), the state of a guest with no account (user id 0,
// "Anonymous User"), only web-public channels, no personal data, nothing of other users
// beyond their public profile.
import { badRequest, unauthorized } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import { DEFAULT_USER_SETTINGS, Role, type Stream, type User } from '../model/types.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../model/version.js';
import { formatStream, byName } from '../views/channels.js';
import { avatarUrl, formatUser } from '../views/users.js';
import { realmProperty } from '../permissions/realmSettings.js';
import { initialState } from './sections.js';
import type { RawRegisterArgs } from './args.js';

const SPECTATOR_EMAIL = 'username@example.com';

/** Whether the organization is open to spectators (realm setting, server setting, active realm). */
export function spectatorsAllowed(actor: RealmActor): boolean {
  return actor.realm.settings.enable_spectator_access && actor.services.config.WEB_PUBLIC_STREAMS_ENABLED && !actor.realm.deactivated;
}

/** The account-less guest a spectator's state is computed for (never stored). */
function spectatorUser(actor: RealmActor): User {
  return {
    id: 0,
    realmId: actor.realm.id,
    deliveryEmail: SPECTATOR_EMAIL,
    fullName: 'Anonymous User',
    passwordHash: null,
    apiKey: '',
    role: Role.GUEST,
    isActive: true,
    isBot: false,
    botType: null,
    botOwnerId: null,
    timezone: '',
    dateJoined: new Date(0),
    avatarSource: 'G',
    avatarVersion: 1,
    canCreateUsers: false,
    settings: {
      ...DEFAULT_USER_SETTINGS,
      default_language: String(realmProperty(actor.state, 'default_language') ?? DEFAULT_USER_SETTINGS.default_language),
      // Zulip opens spectators on recent conversations whatever the default.
      web_home_view: 'recent_topics',
    },
  };
}

const webPublic = (s: Stream) => s.isWebPublic && !s.isArchived;

/** A web-public channel as a spectator's "subscription" (Zulip's get_web_public_subs). */
function webPublicSubscription(actor: RealmActor, stream: Stream): Record<string, unknown> {
  return {
    ...formatStream(actor.state, stream),
    color: '#c2c2c2',
    is_muted: false,
    in_home_view: true,
    pin_to_top: false,
    desktop_notifications: true,
    audible_notifications: true,
    push_notifications: true,
    email_notifications: true,
    wildcard_mentions_notify: true,
  };
}

export async function registerSpectator(actor: RealmActor, args: RawRegisterArgs): Promise<Record<string, unknown>> {
  if (!spectatorsAllowed(actor)) throw unauthorized();
  // Zulip refuses these for anonymous requests rather than quietly ignoring them.
  if (args.client_gravatar === true) throw badRequest("Invalid 'client_gravatar' parameter for anonymous request");
  if (args.include_subscribers !== false) throw badRequest("Invalid 'include_subscribers' parameter for anonymous request");
  const spectator = spectatorUser(actor);
  const fetchTypes = args.fetch_event_types ?? args.event_types ?? null;
  const want = (type: string) => fetchTypes === null || fetchTypes.includes(type);
  const state = await initialState(actor, spectator, fetchTypes ? new Set(fetchTypes) : null, { ...args, client_gravatar: false }, []);
  const channels = [...actor.state.streams.values()].filter(webPublic);

  if (want('subscription')) {
    state.subscriptions = channels.map((s) => webPublicSubscription(actor, s)).sort(byName);
    state.unsubscribed = [];
    state.never_subscribed = [];
  }
  if (want('stream')) {
    if (args.include_streams) state.streams = channels.map((s) => formatStream(actor.state, s)).sort(byName);
    else delete state.streams;
  }
  if (want('realm_user')) {
    const { config } = actor.services;
    const users = [...actor.state.users.values()].sort((a, b) => a.id - b.id);
    // Public profiles only: no custom profile data, no real email addresses.
    const view = (u: User) => formatUser(config, actor.realm, null, u, { clientGravatar: false, omitIsActive: true });
    Object.assign(state, {
      realm_users: users.filter((u) => u.isActive).map(view),
      realm_non_active_users: users.filter((u) => !u.isActive).map(view),
      avatar_url: avatarUrl(spectator),
      avatar_url_medium: avatarUrl(spectator, true),
      delivery_email: SPECTATOR_EMAIL,
      email: SPECTATOR_EMAIL,
    });
  }
  if (want('realm')) {
    // Features an anonymous visitor cannot use are shown as off (as Zulip does).
    state.realm_allow_message_editing = false;
    state.realm_presence_disabled = true;
  }
  if (want('presence')) {
    state.presences = {};
    state.presence_last_update_id = -1;
  }
  if (want('custom_profile_fields')) state.custom_profile_fields = [];
  // Zulip gives a spectator no statuses (and, with no account, nobody muted).
  if (want('user_status')) state.user_status = {};
  if (want('realm_user_groups')) state.realm_user_groups ??= [];
  return {
    ...state,
    queue_id: null,
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_MERGE_BASE,
  };
}
