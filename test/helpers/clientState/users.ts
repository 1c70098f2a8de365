// How the reference client applies `realm_user` and `realm_bot` events.
import { ADMIN_ROLES, GUEST, MODERATOR_ROLES, OWNER, clone, removeDeactivatedFromGroups, removeUserEverywhere, type ClientState, type Obj } from './state.js';

const GRAVATAR = 'https://secure.gravatar.com/';

/** Zulip's get_data_for_inaccessible_user: nothing true of the user but its id. */
export function unknownUser(realmUrl: string, id: number): Obj {
  return {
    email: `user${id}@${new URL(realmUrl).hostname}`,
    user_id: id,
    avatar_version: 1,
    is_admin: false,
    is_owner: false,
    is_guest: false,
    is_bot: false,
    role: 400,
    full_name: 'Unknown user',
    timezone: '',
    is_active: true,
    date_joined: '1970-01-01T00:00:00+00:00',
    delivery_email: null,
    avatar_url: '/static/images/unknown-user-avatar.png',
    profile_data: {},
  };
}

export function applyRealmUser(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  const users = cs.rawUsers;
  const person = clone(event.person as Obj);
  const id = person.user_id as number;
  if (event.op === 'add') {
    if (!users) return;
    // With client_gravatar the client computes Gravatar URLs itself, from `email`: possible
    // only when `email` is the real address (email visible to everyone).
    const emailIsReal = person.delivery_email !== null && person.email === person.delivery_email;
    if (opts.clientGravatar && emailIsReal && typeof person.avatar_url === 'string' && person.avatar_url.startsWith(GRAVATAR)) {
      person.avatar_url = null;
    }
    person.is_active = true;
    if (!person.is_bot) person.profile_data = {};
    users.set(id, person);
    return;
  }
  if (event.op === 'remove') {
    if (users?.has(id)) {
      // Zulip's apply_event: a client that lists every user keeps the one it lost sight of
      // as the "Unknown user" placeholder.
      if (opts.userListIncomplete) users.delete(id);
      else users.set(id, unknownUser(String(state.realm_url), id));
    }
    removeUserEverywhere(cs, id);
    return;
  }
  // update
  if (id === opts.userId) {
    if ('avatar_url' in person && 'avatar_url' in state) {
      state.avatar_source = person.avatar_source;
      state.avatar_url = person.avatar_url;
      state.avatar_url_medium = person.avatar_url_medium;
    }
    if ('role' in person) {
      const wasAdmin = ADMIN_ROLES.has(users?.get(id)?.role ?? 0);
      state.is_admin = ADMIN_ROLES.has(person.role);
      state.is_owner = person.role === OWNER;
      state.is_moderator = MODERATOR_ROLES.has(person.role);
      const wasGuest = state.is_guest as boolean;
      state.is_guest = person.role === GUEST;
      if ('realm_default_streams' in state) {
        if (state.is_guest) state.realm_default_streams = [];
        else if (wasGuest) cs.needsRefetch.add('realm_default_streams');
      }
      if ('realm_bots' in state) {
        if (wasAdmin && !state.is_admin) state.realm_bots = (state.realm_bots as Obj[]).filter((b) => b.owner_id === opts.userId);
        if (!wasAdmin && state.is_admin) cs.needsRefetch.add('realm_bots');
      }
    }
    for (const field of ['delivery_email', 'email', 'full_name']) if (field in person && field in state) state[field] = person[field];
    if ('new_email' in person) state.email = person.new_email;
  }
  const p = users?.get(id);
  if (!p) return;
  if ('avatar_url' in person && opts.clientGravatar && typeof person.avatar_url === 'string' && person.avatar_url.startsWith(GRAVATAR)) {
    const emailIsReal = p.delivery_email !== null && p.email === p.delivery_email;
    if (emailIsReal) person.avatar_url = null;
  }
  for (const field of Object.keys(p)) if (field in person) p[field] = person[field];
  if ('role' in person) {
    p.is_admin = ADMIN_ROLES.has(person.role);
    p.is_owner = person.role === OWNER;
    p.is_guest = person.role === GUEST;
  }
  if ('custom_profile_field' in person) {
    const field = person.custom_profile_field as Obj;
    const key = String(field.id);
    if (field.value === null) delete p.profile_data?.[key];
    else p.profile_data[key] = 'rendered_value' in field ? { value: field.value, rendered_value: field.rendered_value } : { value: field.value };
  }
  if ('new_email' in person) p.email = person.new_email;
  if ('is_active' in person && !person.is_active) {
    removeUserEverywhere(cs, id);
    removeDeactivatedFromGroups(state, id);
  }
}

export function applyRealmBot(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('realm_bots' in state)) return;
  const bot = event.bot as Obj;
  if (event.op === 'add') state.realm_bots.push(clone(bot));
  else if (event.op === 'delete') state.realm_bots = (state.realm_bots as Obj[]).filter((b) => b.user_id !== bot.user_id);
  else {
    for (const b of state.realm_bots as Obj[]) {
      if (b.user_id !== bot.user_id) continue;
      if ('owner_id' in bot) b.owner_id = bot.owner_id;
      else Object.assign(b, clone(bot));
    }
  }
}

