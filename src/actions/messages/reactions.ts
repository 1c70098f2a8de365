// Emoji reactions: add and remove, announced to every user who can read the message.
// An emoji is named within its type's namespace: Unicode emoji by code points (from the
// renderer's emoji table), custom emoji by id, Zulip's extra emoji by name.
import { ApiError, badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { ReactionType, User } from '../../model/types.js';
import { VisibilityPolicy } from '../../model/messageState.js';
import { emojiCodeForName, emojiNameForCode } from '../../render/emoji.js';
import { deleteReaction, insertReaction, type Reaction } from '../../db/reactions.js';
import { saveUserTopics } from '../../db/topics.js';
import { accessibleMessage } from '../../queries/messages.js';
import { loadReader, readersOf } from '../../queries/readers.js';
import { policyForParticipation, userTopicChanged } from './topicPolicy.js';
import { reactionEvent } from '../../events/catalog/index.js';
import { apiEmail } from '../../views/users.js';

export interface EmojiInput {
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

interface Emoji {
  name: string;
  code: string;
  type: ReactionType;
}

const ZULIP_EXTRA_EMOJI = 'zulip_extra_emoji' as const;
const UNICODE_CODE_RE = /^[0-9a-f]{1,6}(-[0-9a-f]{1,6})*$/;

/** The spec's `service_extra_emoji` is Zulip's `zulip_extra_emoji`. */
const normalizeType = (t: string) => (t === 'service_extra_emoji' ? ZULIP_EXTRA_EMOJI : t);

/** An emoji by name alone: custom emoji would come first, then Unicode, then Zulip's own. */
export function emojiByName(name: string): Emoji {
  const code = emojiCodeForName(name);
  if (code) return { name, code, type: 'unicode_emoji' };
  if (name === 'zulip') return { name, code: 'zulip', type: ZULIP_EXTRA_EMOJI };
  throw badRequest(`Emoji '${name}' does not exist`);
}

/** Zulip's check_emoji_request: the code must exist in its namespace and match the name. */
export function checkEmoji(name: string, code: string, type: string): Emoji {
  switch (type) {
    case 'unicode_emoji':
      if (!UNICODE_CODE_RE.test(code) || emojiNameForCode(code) === undefined) throw badRequest('Invalid emoji code.');
      if (emojiCodeForName(name) !== code) throw badRequest('Invalid emoji name.');
      return { name, code, type: 'unicode_emoji' };
    case 'realm_emoji':
      // The organization has no custom emoji: no id names one.
      throw badRequest('Invalid custom emoji.');
    case ZULIP_EXTRA_EMOJI:
      if (code !== 'zulip') throw badRequest('Invalid emoji code.');
      if (name !== 'zulip') throw badRequest('Invalid emoji name.');
      return { name, code, type: ZULIP_EXTRA_EMOJI };
    default:
      throw badRequest('Invalid emoji type.');
  }
}

function resolveEmoji(input: EmojiInput): Emoji {
  if (input.emojiCode === undefined) {
    if (input.emojiName === undefined) throw new ApiError('REQUEST_VARIABLE_MISSING', "Missing 'emoji_name' argument", 400, { var_name: 'emoji_name' });
    return emojiByName(input.emojiName);
  }
  const type = normalizeType(input.reactionType ?? 'unicode_emoji');
  const name = input.emojiName ?? (type === 'unicode_emoji' ? emojiNameForCode(input.emojiCode) : input.emojiCode);
  if (name === undefined) throw badRequest('Invalid emoji code.');
  return checkEmoji(name, input.emojiCode, type);
}

const reactionChanged = (actor: RealmActor, op: 'add' | 'remove', r: Reaction, reactor: User) =>
  reactionEvent(op, {
    message_id: r.messageId, emoji_name: r.emojiName, emoji_code: r.emojiCode, reaction_type: r.reactionType, user_id: r.userId,
    user: { user_id: reactor.id, email: apiEmail(actor.services.config, actor.realm, reactor), full_name: reactor.fullName },
  });

async function changeReaction(actor: RealmActor, user: User, messageId: number, op: 'add' | 'remove', input: EmojiInput): Promise<void> {
  const emoji = resolveEmoji(input);
  await actor.exclusive(async () => {
    const reader = await loadReader(actor, user);
    const { message } = await accessibleMessage(actor, reader, messageId);
    let reaction: Reaction | null;
    if (op === 'add') {
      reaction = { messageId, userId: user.id, emojiName: emoji.name, emojiCode: emoji.code, reactionType: emoji.type };
      if (!(await insertReaction(actor.sql, reaction))) throw new ApiError('REACTION_ALREADY_EXISTS', 'Reaction already exists.', 400);
    } else {
      reaction = await deleteReaction(actor.sql, { messageId, userId: user.id, reactionType: emoji.type, emojiCode: emoji.code });
      if (!reaction) throw new ApiError('REACTION_DOES_NOT_EXIST', "Reaction doesn't exist.", 400);
    }
    const readers = (await readersOf(actor, [message])).get(message.id) ?? new Map<number, number>();
    actor.events.publish(reactionChanged(actor, op, reaction, user), [user.id, ...readers.keys()]);
    // Reacting is taking part: users who follow topics they take part in follow this one.
    if (op === 'add' && message.streamId !== null && !user.isBot) {
      const stream = actor.state.streams.get(message.streamId);
      const current = actor.state.messaging.userTopic(user.id, message.streamId, message.topic)?.visibilityPolicy ?? VisibilityPolicy.INHERIT;
      const muted = actor.state.subscription(user.id, message.streamId)?.isMuted === true;
      const policy = stream ? policyForParticipation(user, muted, current) : null;
      if (policy !== null) {
        const t = { userId: user.id, streamId: message.streamId, topicName: message.topic, visibilityPolicy: policy, lastUpdated: Math.floor(Date.now() / 1000) };
        await saveUserTopics(actor.sql, [t]);
        actor.state.messaging.putUserTopic(t);
        actor.events.publish(userTopicChanged(t), [user.id]);
      }
    }
  });
}

export function addReaction(actor: RealmActor, user: User, messageId: number, input: EmojiInput): Promise<void> {
  return changeReaction(actor, user, messageId, 'add', input);
}

export function removeReaction(actor: RealmActor, user: User, messageId: number, input: EmojiInput): Promise<void> {
  return changeReaction(actor, user, messageId, 'remove', input);
}
