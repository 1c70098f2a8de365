// The reference client's state back in the register shape (Zulip's post_process_state), with
// what a client derives from its data: unread counts and its own abilities.
import { clone, type ClientState, type Obj } from './state.js';

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

