// The reference client's state: the register answer with its big lists in Zulip's
// intermediate forms (see ../applyEvents.ts), and helpers the event reducers share.

/** What the client told the server in POST /register (the reducer follows the same options). */
export interface ClientOptions {
  userId: number;
  includeSubscribers: boolean;
  clientGravatar: boolean;
  linkifierUrlTemplate: boolean;
  userListIncomplete: boolean;
  archivedChannels: boolean;
  includeDeactivatedGroups: boolean;
}

export type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface RawUnread {
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

export const clone = <T>(v: T): T => structuredClone(v);

export const ADMIN_ROLES = new Set([100, 200]);
export const OWNER = 100;
export const MODERATOR_ROLES = new Set([100, 200, 300]);
export const GUEST = 600;

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
export function channelLists(state: Obj): Obj[][] {
  return ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams'].filter((k) => k in state).map((k) => state[k] as Obj[]);
}

export function subscriberKey(sub: Obj): string | null {
  return 'subscribers' in sub ? 'subscribers' : 'partial_subscribers' in sub ? 'partial_subscribers' : null;
}

export function removeUserEverywhere(cs: ClientState, userId: number): void {
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
export function removeDeactivatedFromGroups(state: Obj, userId: number): void {
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

