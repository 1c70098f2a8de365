// Narrows of GET /messages and friends: parsing the client's terms and resolving every name
// and id inside the caller's realm, into filters the SQL builder (db/narrow.ts) understands.
import { z } from 'zod';
import { ApiError } from '../model/errors.js';
import type { RealmActor } from '../realm/actor.js';
import { Role, type User } from '../model/types.js';
import { VisibilityPolicy } from '../model/messageState.js';
import { Flag } from '../db/flags.js';
import type { NarrowFilter, ResolvedNarrow } from '../db/narrow.js';
import { topicFromClient } from '../model/topics.js';
import { userByEmail } from './users.js';

const operand = z.union([z.string(), z.number(), z.array(z.union([z.number(), z.string()]))]);

/** The wire form: `[operator, operand]` pairs or `{operator, operand, negated}` objects. */
export const narrowSchema = z.array(
  z.union([
    z.tuple([z.string(), operand]),
    z.object({ operator: z.string(), operand, negated: z.boolean().optional() }),
  ]),
);

export type RawNarrow = z.infer<typeof narrowSchema>;

export const badNarrow = (desc: string) => new ApiError('BAD_NARROW', `Invalid narrow operator: ${desc}`, 400, { desc });

const CHANNEL_OPS = new Set(['channel', 'stream']);
const DM_OPS = new Set(['dm', 'pm-with', 'pm_with']);
const DM_INCLUDING_OPS = new Set(['dm-including', 'group-pm-with', 'group_pm_with', 'dm-with']);

interface Term {
  operator: string;
  operand: string | number | Array<string | number>;
  negated: boolean;
}

function normalize(raw: RawNarrow): Term[] {
  return raw.map((t) => (Array.isArray(t) ? { operator: t[0], operand: t[1], negated: false } : { ...t, negated: t.negated ?? false }));
}

function findUser(actor: RealmActor, viewer: User, value: string | number): User | undefined {
  if (typeof value === 'number') return actor.user(value);
  if (/^\d+$/.test(value)) return actor.user(Number(value));
  return userByEmail(actor, viewer, value.trim());
}

function usersOf(actor: RealmActor, viewer: User, value: Term['operand'], desc: string): User[] {
  const list = Array.isArray(value) ? value : typeof value === 'number' ? [value] : value.split(',').map((s) => s.trim()).filter(Boolean);
  return list.map((v) => {
    const u = findUser(actor, viewer, v);
    if (!u) throw badNarrow(`unknown user in ${desc}`);
    return u;
  });
}

const text = (t: Term): string => {
  if (typeof t.operand === 'string') return t.operand;
  if (typeof t.operand === 'number') return String(t.operand);
  throw badNarrow(`invalid operand for ${t.operator}`);
};

/** Topics with a given policy of the user, as [channel id, lowercased topic]. */
function topicsWithPolicy(actor: RealmActor, userId: number, policies: number[]): Array<[number, string]> {
  return actor.state.messaging
    .userTopicsOf(userId)
    .filter((t) => policies.includes(t.visibilityPolicy))
    .map((t) => [t.streamId, t.topicName.toLowerCase()]);
}

function mutedFilter(actor: RealmActor, user: User): NarrowFilter {
  const mutedStreamIds: number[] = [];
  for (const sub of actor.state.subsByUser.get(user.id)?.values() ?? []) if (sub.active && sub.isMuted) mutedStreamIds.push(sub.streamId);
  return {
    kind: 'muted',
    streamIds: mutedStreamIds,
    mutedTopics: topicsWithPolicy(actor, user.id, [VisibilityPolicy.MUTED]),
    visibleTopics: topicsWithPolicy(actor, user.id, [VisibilityPolicy.UNMUTED, VisibilityPolicy.FOLLOWED]),
  };
}

function resolveTerm(actor: RealmActor, user: User, t: Term): NarrowFilter | null {
  const { state } = actor;
  const op = t.operator;
  if (CHANNEL_OPS.has(op)) {
    // A number is an id; a text is a name (or, failing that, an id written as text).
    const raw = text(t);
    const stream =
      typeof t.operand === 'number'
        ? state.streams.get(t.operand)
        : (state.streamByName(raw.trim()) ?? (/^\d+$/.test(raw.trim()) ? state.streams.get(Number(raw)) : undefined));
    if (!stream) throw badNarrow(`unknown channel ${raw}`);
    return { kind: 'stream', streamId: stream.id };
  }
  if (op === 'channels' || op === 'streams') {
    const which = text(t);
    if (which !== 'public' && which !== 'web-public') throw badNarrow(`unknown channels operand ${which}`);
    const ids: number[] = [];
    for (const s of state.streams.values()) {
      const visible = which === 'web-public' ? s.isWebPublic : user.role === Role.GUEST ? s.isWebPublic : !s.inviteOnly;
      if (visible && s.historyPublicToSubscribers) ids.push(s.id);
    }
    return { kind: 'streams', streamIds: ids };
  }
  if (op === 'topic') return { kind: 'topic', topic: topicFromClient(text(t)) };
  if (op === 'sender') {
    const u = findUser(actor, user, text(t));
    if (!u) throw badNarrow(`unknown user ${text(t)}`);
    return { kind: 'sender', userId: u.id };
  }
  if (DM_OPS.has(op)) {
    const users = usersOf(actor, user, t.operand, String(t.operand));
    const ids = [...new Set([user.id, ...users.map((u) => u.id)])].sort((a, b) => a - b);
    const conversation = state.messaging.directConversation(ids);
    return { kind: 'conversations', recipientIds: conversation ? [conversation.id] : [] };
  }
  if (DM_INCLUDING_OPS.has(op)) {
    const [other] = usersOf(actor, user, typeof t.operand === 'number' ? t.operand : text(t), String(t.operand));
    const ids = state.messaging
      .directConversationsOf(user.id)
      .filter((id) => state.messaging.conversations.get(id)?.userIds?.includes(other!.id));
    return { kind: 'conversations', recipientIds: ids };
  }
  if (op === 'is') {
    switch (text(t)) {
      case 'dm':
      case 'private':
        return { kind: 'direct' };
      case 'starred':
        return { kind: 'flag', bit: Flag.STARRED };
      case 'alerted':
        return { kind: 'flag', bit: Flag.HAS_ALERT_WORD };
      case 'unread':
        return { kind: 'unread' };
      case 'mentioned':
        return { kind: 'mentioned' };
      case 'resolved':
        return { kind: 'resolved' };
      case 'followed':
        return { kind: 'topics', pairs: topicsWithPolicy(actor, user.id, [VisibilityPolicy.FOLLOWED]) };
      case 'muted':
        return mutedFilter(actor, user);
      default:
        throw badNarrow(`unknown 'is' operand ${text(t)}`);
    }
  }
  if (op === 'has') {
    const what = text(t);
    if (what !== 'link' && what !== 'image' && what !== 'attachment' && what !== 'reaction') throw badNarrow(`unknown 'has' operand ${what}`);
    return { kind: 'has', what };
  }
  if (op === 'id') {
    const v = text(t);
    if (!/^\d+$/.test(v)) throw badNarrow('Invalid message ID');
    return { kind: 'id', id: Number(v) };
  }
  if (op === 'search') return { kind: 'search', query: text(t) };
  if (op === 'in') {
    const where = text(t);
    if (where === 'all') return null;
    if (where !== 'home') throw badNarrow(`unknown 'in' operand ${where}`);
    return { ...mutedFilter(actor, user), negatedByDefault: true };
  }
  if (op === 'mentions') {
    const u = findUser(actor, user, text(t));
    if (!u) throw badNarrow(`unknown user ${text(t)}`);
    return { kind: 'mentions', userId: u.id };
  }
  // `near` and `with` only say where to look (the anchor); they filter nothing.
  if (op === 'near' || op === 'with') return null;
  throw badNarrow(`unknown operator ${op}`);
}

/** Resolves a client's narrow for `user`; BAD_NARROW for anything unknown or contradictory. */
export function resolveNarrow(actor: RealmActor, user: User, raw: RawNarrow): ResolvedNarrow {
  const terms = normalize(raw);
  const filters: Array<{ filter: NarrowFilter; negated: boolean }> = [];
  let channelScope = false;
  let channelTerm = false;
  let directTerm = false;
  const searchTerms: string[] = [];
  for (const t of terms) {
    const filter = resolveTerm(actor, user, t);
    if (!filter) continue;
    const negated = filter.negatedByDefault ? !t.negated : t.negated;
    if (!negated) {
      if (filter.kind === 'stream' || filter.kind === 'streams') channelScope = true;
      if (filter.kind === 'stream' || filter.kind === 'streams' || filter.kind === 'topic') channelTerm = true;
      if (filter.kind === 'direct' || filter.kind === 'conversations') directTerm = true;
      if (filter.kind === 'search') searchTerms.push(filter.query);
    }
    filters.push({ filter, negated });
  }
  if (channelTerm && directTerm) {
    throw new ApiError(
      'BAD_NARROW',
      'Invalid narrow operator combination: No message can be both a channel message and direct message',
      400,
      { desc: 'No message can be both a channel message and direct message' },
    );
  }
  return { filters, channelScope, search: searchTerms.length ? searchTerms.join(' ') : null };
}
