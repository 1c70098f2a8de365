// A reference client: how a Zulip client keeps the POST /register state up to date from the
// events of its queue. It follows Zulip's own `apply_event` (zerver/lib/events.py), in the
// form a client can run: it knows only the register answer and the events, never the server's
// database. Where Zulip's reducer asks the database (a recomputed max_message_id after a
// delete, all bots after becoming an administrator, default channels after leaving the guest
// role), this client marks the key as needing a refetch instead, and the comparison leaves
// that key out and says so.
//
// The state is kept in Zulip's intermediate forms (users by id with `is_active`, unread
// messages by message id, recent conversations by participants) and turned back into the
// register shape by `registerShape`, as Zulip's post_process_state does.

/** What the client told the server in POST /register (the reducer follows the same options). */
export interface ClientOptions {
  userId: number;
  includeSubscribers: boolean;
  clientGravatar: boolean;
  linkifierUrlTemplate: boolean;
  userListIncomplete: boolean;
  archivedChannels: boolean;
  includeDeactivatedGroups: boolean;
  simplifiedPresence: boolean;
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface RawUnread {
  /** message id → the other participant (yourself for a direct message to yourself). */
  pms: Map<number, number>;
  streams: Map<number, { stream_id: number; topic: string }>;
  huddles: Map<number, string>;
  /** Personal mentions, and mentions the register listed (always counted). */
  mentions: Set<number>;
  /** Channel-wide and topic-wide mentions: counted only while their conversation is not muted. */
  wildcardMentions: Set<number>;
  oldUnreadsMissing: boolean;
}

export interface ClientState {
  opts: ClientOptions;
  /** The register answer's keys, with the lists below taken out into their raw forms. */
  state: Obj;
  rawUsers: Map<number, Obj> | null;
  rawUnread: RawUnread | null;
  /** Participants (sorted ids without yourself, as JSON) → newest message id. */
  rawRecent: Map<string, number> | null;
  /** Subscriptions dropped by `stream delete` (lost access): their personal settings return with the channel. */
  droppedSubscriptions: Map<number, Obj>;
  /** Keys whose value only a refetch would give (see the header). */
  needsRefetch: Set<string>;
}

const clone = <T>(v: T): T => structuredClone(v);

const ADMIN_ROLES = new Set([100, 200]);
const OWNER = 100;
const MODERATOR_ROLES = new Set([100, 200, 300]);
const GUEST = 600;

/** The client state from a register answer (deep-copied). */
export function fromRegister(body: Obj, opts: ClientOptions): ClientState {
  const state = clone(body);
  let rawUsers: Map<number, Obj> | null = null;
  if ('realm_users' in state) {
    rawUsers = new Map();
    for (const u of state.realm_users as Obj[]) rawUsers.set(u.user_id, { ...u, is_active: true });
    for (const u of state.realm_non_active_users as Obj[]) rawUsers.set(u.user_id, { ...u, is_active: false });
    delete state.realm_users;
    delete state.realm_non_active_users;
  }
  let rawUnread: RawUnread | null = null;
  if ('unread_msgs' in state) {
    const u = state.unread_msgs as Obj;
    rawUnread = { pms: new Map(), streams: new Map(), huddles: new Map(), mentions: new Set(u.mentions), wildcardMentions: new Set(), oldUnreadsMissing: u.old_unreads_missing };
    for (const pm of u.pms as Obj[]) for (const id of pm.unread_message_ids) rawUnread.pms.set(id, pm.other_user_id);
    for (const s of u.streams as Obj[]) for (const id of s.unread_message_ids) rawUnread.streams.set(id, { stream_id: s.stream_id, topic: s.topic });
    for (const h of u.huddles as Obj[]) for (const id of h.unread_message_ids) rawUnread.huddles.set(id, h.user_ids_string);
    delete state.unread_msgs;
  }
  let rawRecent: Map<string, number> | null = null;
  if ('recent_private_conversations' in state) {
    rawRecent = new Map();
    for (const c of state.recent_private_conversations as Obj[]) rawRecent.set(JSON.stringify(c.user_ids), c.max_message_id);
    delete state.recent_private_conversations;
  }
  return { opts, state, rawUsers, rawUnread, rawRecent, droppedSubscriptions: new Map(), needsRefetch: new Set() };
}

export function applyEvents(cs: ClientState, events: Obj[]): void {
  for (const event of events) applyEvent(cs, event);
}

/** The channel lists of the state (all keyed the same way: by stream_id). */
function channelLists(state: Obj): Obj[][] {
  return ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams'].filter((k) => k in state).map((k) => state[k] as Obj[]);
}

function subscriberKey(sub: Obj): string | null {
  return 'subscribers' in sub ? 'subscribers' : 'partial_subscribers' in sub ? 'partial_subscribers' : null;
}

function removeUserEverywhere(cs: ClientState, userId: number): void {
  const { state } = cs;
  if (cs.opts.includeSubscribers) {
    for (const list of [state.subscriptions, state.unsubscribed, state.never_subscribed] as Obj[][]) {
      for (const sub of list ?? []) {
        const key = subscriberKey(sub);
        if (key) sub[key] = (sub[key] as number[]).filter((id) => id !== userId);
      }
    }
  }
}

/** Deactivated users leave group memberships and anonymous group settings (Zulip's apply_event). */
function removeDeactivatedFromGroups(state: Obj, userId: number): void {
  const strip = (value: unknown) => {
    if (value && typeof value === 'object' && Array.isArray((value as Obj).direct_members)) {
      (value as Obj).direct_members = ((value as Obj).direct_members as number[]).filter((id) => id !== userId);
    }
  };
  for (const group of (state.realm_user_groups ?? []) as Obj[]) {
    group.members = (group.members as number[]).filter((id) => id !== userId);
    for (const [key, value] of Object.entries(group)) if (key.startsWith('can_')) strip(value);
  }
  for (const [key, value] of Object.entries(state)) if (key.startsWith('realm_can_')) strip(value);
}

function applyEvent(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  switch (event.type) {
    case 'heartbeat':
    case 'typing':
    case 'reaction':
    case 'invites_changed':
      // Transient, or about data register does not carry.
      return;
    case 'message':
      return applyMessage(cs, event);
    case 'update_message':
      return applyUpdateMessage(cs, event);
    case 'delete_message':
      return applyDeleteMessage(cs, event);
    case 'update_message_flags':
      return applyFlags(cs, event);
    case 'custom_profile_fields': {
      state.custom_profile_fields = event.fields;
      const ids = new Set((event.fields as Obj[]).map((f) => String(f.id)));
      for (const u of cs.rawUsers?.values() ?? []) {
        if (!u.profile_data) continue;
        for (const id of Object.keys(u.profile_data)) if (!ids.has(id)) delete u.profile_data[id];
      }
      return;
    }
    case 'realm_user':
      return applyRealmUser(cs, event);
    case 'realm_bot':
      return applyRealmBot(cs, event);
    case 'stream':
      return applyStream(cs, event);
    case 'subscription':
      return applySubscription(cs, event);
    case 'default_streams':
      state.realm_default_streams = event.default_streams;
      return;
    case 'realm':
      return applyRealm(cs, event);
    case 'realm_user_settings_defaults':
      state.realm_user_settings_defaults[event.property] = event.value;
      return;
    case 'presence': {
      if (!('presences' in state)) return;
      if (opts.simplifiedPresence) {
        for (const [userId, presence] of Object.entries(event.presences as Obj)) state.presences[userId] = presence;
      } else {
        // The legacy form says which client changed; the client keeps its own aggregate.
        const key = String(event.user_id);
        state.presences[key] = { ...(state.presences[key] ?? {}), ...event.presence };
      }
      return;
    }
    case 'alert_words':
      state.alert_words = event.alert_words;
      return;
    case 'realm_linkifiers':
      if (opts.linkifierUrlTemplate) state.realm_linkifiers = event.realm_linkifiers;
      return;
    case 'realm_filters':
      return;
    case 'realm_playgrounds':
      state.realm_playgrounds = event.realm_playgrounds;
      return;
    case 'user_settings':
      if ('user_settings' in state) state.user_settings[event.property] = event.value;
      // Clients of the old top-level settings keep those too (Zulip's reducer does the same).
      if (event.property in state) state[event.property] = event.value;
      return;
    case 'update_display_settings':
      state[event.setting_name] = event.setting;
      return;
    case 'update_global_notifications':
      state[event.notification_name] = event.setting;
      return;
    case 'user_group':
      return applyUserGroup(cs, event);
    case 'user_topic':
      return applyUserTopic(cs, event);
    case 'channel_folder':
      return applyChannelFolder(cs, event);
    default:
      throw new Error(`the reference client does not know event type ${String(event.type)}: ${JSON.stringify(event)}`);
  }
}

// ---- Messages ----------------------------------------------------------------------------

function applyMessage(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  const m = event.message as Obj;
  if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, m.id);
  const flags = event.flags as string[];
  if (cs.rawUnread && !flags.includes('read')) {
    const raw = cs.rawUnread;
    if (m.type === 'stream') {
      raw.streams.set(m.id, { stream_id: m.stream_id, topic: m.subject });
    } else {
      const others = (m.display_recipient as Obj[]).filter((r) => r.id !== opts.userId);
      if (others.length <= 1) raw.pms.set(m.id, others.length ? others[0]!.id : opts.userId);
      else raw.huddles.set(m.id, (m.display_recipient as Obj[]).map((r) => r.id as number).sort((a, b) => a - b).join(','));
    }
    if (flags.includes('mentioned')) raw.mentions.add(m.id);
    if (flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned')) {
      if (m.type === 'stream') raw.wildcardMentions.add(m.id);
      else raw.mentions.add(m.id);
    }
  }
  if (m.type !== 'stream') {
    if (cs.rawRecent) {
      const others = (m.display_recipient as Obj[]).map((r) => r.id as number).filter((id) => id !== opts.userId).sort((a, b) => a - b);
      cs.rawRecent.set(JSON.stringify(others), m.id);
    }
    return;
  }
  for (const list of channelLists(state)) {
    for (const s of list) if (s.stream_id === m.stream_id && s.first_message_id === null) s.first_message_id = m.id;
  }
}

function applyUpdateMessage(cs: ClientState, event: Obj): void {
  const raw = cs.rawUnread;
  if (!raw) return;
  for (const id of event.message_ids as number[]) {
    const entry = raw.streams.get(id);
    if (!entry) continue;
    if ('new_stream_id' in event) entry.stream_id = event.new_stream_id;
    if ('subject' in event) entry.topic = event.subject;
  }
  // A content edit can add or remove a mention of this user: the event's flags say which
  // (as the web app's unread.update_message_for_mention reads them).
  const id = event.message_id as number;
  if ('content' in event && (raw.pms.has(id) || raw.streams.has(id) || raw.huddles.has(id))) {
    const flags = event.flags as string[];
    raw.mentions.delete(id);
    raw.wildcardMentions.delete(id);
    if (flags.includes('mentioned')) raw.mentions.add(id);
    else if (flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned')) {
      if (raw.streams.has(id)) raw.wildcardMentions.add(id);
      else raw.mentions.add(id);
    }
  }
}

function applyDeleteMessage(cs: ClientState, event: Obj): void {
  const { state } = cs;
  const ids: number[] = 'message_id' in event ? [event.message_id] : event.message_ids;
  // Zulip recomputes these from the database; a client can only keep them while the deleted
  // message was not the one they name.
  if ('max_message_id' in state && ids.includes(state.max_message_id)) cs.needsRefetch.add('max_message_id');
  if (cs.rawUnread) for (const id of ids) removeUnread(cs.rawUnread, id);
  if (cs.rawRecent && event.message_type === 'private') {
    for (const max of cs.rawRecent.values()) if (ids.includes(max)) cs.needsRefetch.add('recent_private_conversations');
  }
}

function removeUnread(raw: RawUnread, id: number): void {
  raw.pms.delete(id);
  raw.streams.delete(id);
  raw.huddles.delete(id);
  raw.mentions.delete(id);
  raw.wildcardMentions.delete(id);
}

function applyFlags(cs: ClientState, event: Obj): void {
  const { state } = cs;
  const raw = cs.rawUnread;
  if (raw && event.flag === 'read' && event.op === 'add') {
    for (const id of event.messages as number[]) removeUnread(raw, id);
  }
  if (raw && event.flag === 'read' && event.op === 'remove') {
    for (const [idText, details] of Object.entries(event.message_details as Record<string, Obj>)) {
      const id = Number(idText);
      if (details.type === 'private') {
        const others = (details.user_ids as number[]).filter((u) => u !== cs.opts.userId);
        if (others.length === 0) raw.pms.set(id, cs.opts.userId);
        else if (others.length === 1) raw.pms.set(id, others[0]!);
        else raw.huddles.set(id, [...others, cs.opts.userId].sort((a, b) => a - b).join(','));
        if (details.mentioned) raw.mentions.add(id);
      } else {
        raw.streams.set(id, { stream_id: details.stream_id, topic: details.topic });
        // The server says whether the message counts as a mention (muting included).
        if (details.mentioned) raw.mentions.add(id);
      }
    }
  }
  if (event.flag === 'starred' && 'starred_messages' in state) {
    if (event.op === 'add') state.starred_messages = [...state.starred_messages, ...event.messages];
    else state.starred_messages = (state.starred_messages as number[]).filter((id) => !(event.messages as number[]).includes(id));
  }
}

// ---- Users and bots ----------------------------------------------------------------------

const GRAVATAR = 'https://secure.gravatar.com/';

function applyRealmUser(cs: ClientState, event: Obj): void {
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
      if (opts.userListIncomplete) users.delete(id);
      else throw new Error('the reference client registers with user_list_incomplete');
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

function applyRealmBot(cs: ClientState, event: Obj): void {
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

// ---- Channels and subscriptions ----------------------------------------------------------

const byName = (a: Obj, b: Obj) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function applyStream(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  if (event.op === 'create') {
    for (const stream of event.streams as Obj[]) {
      if ('subscriptions' in state) {
        const data = clone(stream);
        if (opts.includeSubscribers) data.subscribers = [];
        const former = cs.droppedSubscriptions.get(stream.stream_id);
        if (former) {
          // Back from a channel this user was subscribed to: its personal settings return.
          const personal = Object.fromEntries(Object.entries(former).filter(([k]) => !(k in stream) && k !== 'subscribers' && k !== 'partial_subscribers'));
          state.unsubscribed.push({ ...data, ...personal });
          cs.droppedSubscriptions.delete(stream.stream_id);
        } else {
          state.never_subscribed.push(data);
        }
        state.unsubscribed.sort(byName);
        state.never_subscribed.sort(byName);
      }
      if ('streams' in state) {
        state.streams.push(clone(stream));
        state.streams.sort(byName);
      }
    }
    return;
  }
  if (event.op === 'delete') {
    const gone = new Set((event.streams as Obj[]).map((s) => s.stream_id as number));
    for (const key of ['subscriptions', 'unsubscribed']) {
      for (const sub of (state[key] ?? []) as Obj[]) if (gone.has(sub.stream_id)) cs.droppedSubscriptions.set(sub.stream_id, sub);
    }
    for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
      if (key in state) state[key] = (state[key] as Obj[]).filter((s) => !gone.has(s.stream_id));
    }
    return;
  }
  // update: Zulip's reducer finds the channel by its (old) name.
  const name = String(event.name).toLowerCase();
  const update = (obj: Obj, onlyKnownProperty: boolean) => {
    if (String(obj.name).toLowerCase() !== name) return;
    if (onlyKnownProperty && !(event.property in obj)) return;
    obj[event.property] = clone(event.value);
    if (event.property === 'description') obj.rendered_description = event.rendered_description;
    if (event.history_public_to_subscribers !== undefined && event.history_public_to_subscribers !== null) {
      obj.history_public_to_subscribers = event.history_public_to_subscribers;
    }
    if (event.is_web_public !== undefined && event.is_web_public !== null) obj.is_web_public = event.is_web_public;
  };
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed']) for (const obj of (state[key] ?? []) as Obj[]) update(obj, false);
  for (const obj of (state.streams ?? []) as Obj[]) update(obj, true);
}

function applySubscription(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  if (!('subscriptions' in state)) return;
  if (event.op === 'add') {
    const added = new Set((event.subscriptions as Obj[]).map((s) => s.stream_id as number));
    const existing = new Set((state.subscriptions as Obj[]).map((s) => s.stream_id as number));
    for (const sub of event.subscriptions as Obj[]) {
      if (existing.has(sub.stream_id)) continue;
      const copy = clone(sub);
      if (!opts.includeSubscribers) {
        delete copy.subscribers;
        delete copy.partial_subscribers;
      }
      state.subscriptions.push(copy);
    }
    state.unsubscribed = (state.unsubscribed as Obj[]).filter((s) => !added.has(s.stream_id));
    state.never_subscribed = (state.never_subscribed as Obj[]).filter((s) => !added.has(s.stream_id));
    return;
  }
  if (event.op === 'remove') {
    const removed = new Set((event.subscriptions as Obj[]).map((s) => s.stream_id as number));
    const subs = (state.subscriptions as Obj[]).filter((s) => removed.has(s.stream_id));
    if (opts.includeSubscribers) {
      for (const sub of subs) {
        const key = subscriberKey(sub);
        if (key) sub[key] = (sub[key] as number[]).filter((id) => id !== opts.userId);
      }
    }
    state.unsubscribed = [...state.unsubscribed, ...subs];
    state.subscriptions = (state.subscriptions as Obj[]).filter((s) => !removed.has(s.stream_id));
    return;
  }
  if (event.op === 'update') {
    for (const sub of state.subscriptions as Obj[]) if (sub.stream_id === event.stream_id) sub[event.property] = event.value;
    return;
  }
  // peer_add / peer_remove
  if (!opts.includeSubscribers) return;
  const streamIds = new Set(event.stream_ids as number[]);
  const userIds = event.user_ids as number[];
  for (const list of [state.subscriptions, state.unsubscribed, state.never_subscribed] as Obj[][]) {
    for (const sub of list) {
      if (!streamIds.has(sub.stream_id)) continue;
      const key = subscriberKey(sub);
      if (!key) continue;
      const set = new Set(sub[key] as number[]);
      for (const id of userIds) if (event.op === 'peer_add') set.add(id); else set.delete(id);
      sub[key] = [...set].sort((a, b) => a - b);
    }
  }
}

// ---- Organization ------------------------------------------------------------------------

function applyRealm(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (event.op === 'update') {
    state[`realm_${event.property}`] = clone(event.value);
    if (event.property === 'jitsi_server_url') {
      state.jitsi_server_url = state.realm_jitsi_server_url ?? state.server_jitsi_server_url;
    }
    if (event.property === 'message_edit_history_visibility_policy') {
      state.realm_allow_edit_history = event.value !== 'none';
    }
    return;
  }
  if (event.op === 'update_dict') {
    for (const [key, value] of Object.entries(event.data as Obj)) {
      if (key === 'max_file_upload_size_mib') state.max_file_upload_size_mib = value;
      else state[`realm_${key}`] = clone(value);
    }
    return;
  }
  if (event.op === 'deactivated') return;
  throw new Error(`unknown realm event ${JSON.stringify(event)}`);
}

function applyUserGroup(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('realm_user_groups' in state)) return;
  const groups = state.realm_user_groups as Obj[];
  const group = groups.find((g) => g.id === event.group_id);
  switch (event.op) {
    case 'add':
      groups.push(clone(event.group));
      groups.sort((a, b) => a.id - b.id);
      return;
    case 'update':
      if (group) Object.assign(group, clone(event.data));
      if (group && event.data.deactivated === true && !cs.opts.includeDeactivatedGroups) {
        state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
      }
      return;
    case 'remove':
      state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
      return;
    case 'add_members':
      if (group) group.members = [...group.members, ...event.user_ids].sort((a: number, b: number) => a - b);
      return;
    case 'remove_members':
      if (group) group.members = (group.members as number[]).filter((id) => !(event.user_ids as number[]).includes(id));
      return;
    case 'add_subgroups':
      if (group) group.direct_subgroup_ids = [...group.direct_subgroup_ids, ...event.direct_subgroup_ids].sort((a: number, b: number) => a - b);
      return;
    case 'remove_subgroups':
      if (group) group.direct_subgroup_ids = (group.direct_subgroup_ids as number[]).filter((id) => !(event.direct_subgroup_ids as number[]).includes(id));
      return;
    default:
      throw new Error(`unknown user_group event ${JSON.stringify(event)}`);
  }
}

function applyUserTopic(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('user_topics' in state)) return;
  const topics = state.user_topics as Obj[];
  const index = topics.findIndex((t) => t.stream_id === event.stream_id && t.topic_name === event.topic_name);
  if (event.visibility_policy === 0) {
    if (index >= 0) topics.splice(index, 1);
    return;
  }
  // Zulip appends; a client replaces the old policy of the same topic.
  const entry = { stream_id: event.stream_id, topic_name: event.topic_name, visibility_policy: event.visibility_policy, last_updated: event.last_updated };
  if (index >= 0) topics.splice(index, 1);
  topics.push(entry);
}

function applyChannelFolder(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('channel_folders' in state)) return;
  const folders = state.channel_folders as Obj[];
  if (event.op === 'add') {
    folders.push(clone(event.channel_folder));
    folders.sort((a, b) => a.id - b.id);
  } else if (event.op === 'update') {
    const folder = folders.find((f) => f.id === event.channel_folder_id);
    if (folder) Object.assign(folder, clone(event.data));
  } else if (event.op === 'reorder') {
    const order = new Map((event.order as number[]).map((id, i) => [id, i]));
    for (const f of folders) f.order = order.get(f.id);
    folders.sort((a, b) => a.order - b.order);
  } else {
    throw new Error(`unknown channel_folder event ${JSON.stringify(event)}`);
  }
}

// ---- Back to the register shape ----------------------------------------------------------

/** Whether a channel message's conversation is muted for this user (channel and topic policies). */
function isMuted(state: Obj, streamId: number, topic: string): boolean {
  const sub = ((state.subscriptions ?? []) as Obj[]).find((s) => s.stream_id === streamId);
  const policy = ((state.user_topics ?? []) as Obj[]).find((t) => t.stream_id === streamId && String(t.topic_name).toLowerCase() === topic.toLowerCase())?.visibility_policy ?? 0;
  const channelMuted = sub?.is_muted === true;
  if (channelMuted) return !(policy === 2 || policy === 3);
  return policy === 1;
}

function aggregateUnread(cs: ClientState): Obj {
  const raw = cs.rawUnread!;
  const { state } = cs;
  const pms = new Map<number, number[]>();
  for (const [id, other] of raw.pms) {
    if (!pms.has(other)) pms.set(other, []);
    pms.get(other)!.push(id);
  }
  const streams = new Map<string, Obj>();
  for (const [id, s] of [...raw.streams].sort((a, b) => a[0] - b[0])) {
    const key = JSON.stringify([s.stream_id, s.topic.toLowerCase()]);
    if (!streams.has(key)) streams.set(key, { stream_id: s.stream_id, topic: s.topic, unread_message_ids: [] });
    streams.get(key)!.unread_message_ids.push(id);
  }
  const huddles = new Map<string, number[]>();
  for (const [id, key] of raw.huddles) {
    if (!huddles.has(key)) huddles.set(key, []);
    huddles.get(key)!.push(id);
  }
  let unmuted = 0;
  const mentions = new Set(raw.mentions);
  for (const [id, s] of raw.streams) {
    const muted = isMuted(state, s.stream_id, s.topic);
    if (!muted) unmuted++;
    if (!muted && raw.wildcardMentions.has(id)) mentions.add(id);
  }
  const sortIds = (ids: number[]) => ids.sort((a, b) => a - b);
  const streamKeys = [...streams.keys()].sort((a, b) => {
    const [sa, ta] = JSON.parse(a) as [number, string];
    const [sb, tb] = JSON.parse(b) as [number, string];
    return sa - sb || (ta < tb ? -1 : ta > tb ? 1 : 0);
  });
  return {
    pms: [...pms.keys()].sort((a, b) => a - b).map((other) => ({ other_user_id: other, sender_id: other, unread_message_ids: sortIds(pms.get(other)!) })),
    streams: streamKeys.map((k) => ({ ...streams.get(k)!, unread_message_ids: sortIds(streams.get(k)!.unread_message_ids) })),
    huddles: [...huddles.keys()].sort().map((key) => ({ user_ids_string: key, unread_message_ids: sortIds(huddles.get(key)!) })),
    mentions: [...mentions].sort((a, b) => a - b),
    count: raw.pms.size + unmuted + raw.huddles.size,
    old_unreads_missing: raw.oldUnreadsMissing,
  };
}

/** Whether a user is in a group-setting value, through the groups the state holds. */
function inGroupSetting(groups: Obj[], userId: number, value: unknown): boolean {
  const byId = new Map(groups.map((g) => [g.id as number, g]));
  const inGroup = (id: number, seen: Set<number>): boolean => {
    const g = byId.get(id);
    if (!g || g.deactivated || seen.has(id)) return false;
    seen.add(id);
    return (g.members as number[]).includes(userId) || (g.direct_subgroup_ids as number[]).some((sub) => inGroup(sub, seen));
  };
  if (typeof value === 'number') return inGroup(value, new Set());
  const v = value as { direct_members: number[]; direct_subgroups: number[] };
  return v.direct_members.includes(userId) || v.direct_subgroups.some((id) => inGroup(id, new Set()));
}

/**
 * The user's own abilities in the `realm_user` section follow from the realm's permission
 * settings and group membership, both of which the client holds and events keep current; a
 * client derives them (Zulip's reducer asks the database after a role change instead).
 */
function deriveOwnPermissions(out: Obj, userId: number): void {
  if (!('can_create_streams' in out) || !('realm_user_groups' in out) || !('realm_can_create_public_channel_group' in out)) return;
  const groups = out.realm_user_groups as Obj[];
  const can = (setting: string) => inGroupSetting(groups, userId, out[`realm_${setting}`]);
  out.can_create_public_streams = can('can_create_public_channel_group');
  out.can_create_private_streams = can('can_create_private_channel_group');
  out.can_create_web_public_streams = out.server_web_public_streams_enabled === true && can('can_create_web_public_channel_group');
  out.can_create_streams = out.can_create_public_streams || out.can_create_private_streams || out.can_create_web_public_streams;
  out.can_subscribe_other_users = can('can_add_subscribers_group');
  out.can_invite_others_to_realm = can('can_invite_users_group');
}

/** The state in the register shape (Zulip's post_process_state). */
export function registerShape(cs: ClientState): Obj {
  const out = clone(cs.state);
  deriveOwnPermissions(out, cs.opts.userId);
  if (cs.rawUsers) {
    const users = [...cs.rawUsers.values()].sort((a, b) => a.user_id - b.user_id).map((u) => clone(u));
    out.realm_users = users.filter((u) => u.is_active);
    out.realm_non_active_users = users.filter((u) => !u.is_active);
    for (const u of users) delete u.is_active;
  }
  if (cs.rawUnread) out.unread_msgs = aggregateUnread(cs);
  if (cs.rawRecent) {
    out.recent_private_conversations = [...cs.rawRecent]
      .map(([key, max]) => ({ max_message_id: max, user_ids: JSON.parse(key) as number[] }))
      .sort((a, b) => b.max_message_id - a.max_message_id);
  }
  return out;
}
