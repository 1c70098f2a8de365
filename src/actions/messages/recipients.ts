// Resolving a send's addressee inside the caller's realm: the channel (by name or id) and its
// topic rules, or the participants of a direct conversation.
import { ApiError, badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import { apiEmail } from '../../views/users.js';
import { userByEmail } from '../../queries/users.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/limits.js';
import { streamDoesNotExist } from '../channels/channels.js';
import type { ChannelTarget } from './input.js';

export function findChannel(actor: RealmActor, target: ChannelTarget): Stream {
  if (typeof target === 'number') {
    const stream = actor.state.streams.get(target);
    if (!stream) throw new ApiError('STREAM_DOES_NOT_EXIST', `Channel with ID '${target}' does not exist`, 400, { stream_id: target });
    return stream;
  }
  const name = target.trim();
  const stream = actor.state.streamByName(name);
  if (!stream) throw streamDoesNotExist(name);
  return stream;
}

/** The recipients of a direct message (without the sender unless named). */
export function resolveDirectRecipients(actor: RealmActor, sender: User, targets: number[] | string[]): User[] {
  if (targets.length === 0) throw badRequest('Message must have recipients');
  const out: User[] = [];
  for (const t of targets) {
    const u = typeof t === 'number' ? actor.user(t) : userByEmail(actor, sender, t);
    if (!u) throw badRequest(typeof t === 'number' ? `Invalid user ID ${t}` : `Invalid email '${t}'`);
    if (!u.isActive) throw badRequest(`'${apiEmail(actor.services.config, actor.realm, u)}' is no longer using Zulip.`);
    if (!out.includes(u)) out.push(u);
  }
  return out;
}

/** The channel's topics policy, with `inherit` resolved to the organization's. */
export function effectiveTopicsPolicy(actor: RealmActor, stream: Stream): Stream['topicsPolicy'] {
  if (stream.topicsPolicy !== 'inherit') return stream.topicsPolicy;
  const settings = actor.realm.settings;
  if (typeof settings.topics_policy === 'string' && settings.topics_policy !== 'inherit') {
    return settings.topics_policy as Stream['topicsPolicy'];
  }
  return settings.mandatory_topics === true ? 'disable_empty_topic' : 'allow_empty_topic';
}

/** The topic rules of a send: the channel's topics policy. */
export function checkTopicAllowed(actor: RealmActor, sender: User, stream: Stream, topic: string): void {
  const policy = effectiveTopicsPolicy(actor, stream);
  if (policy === 'disable_empty_topic' && topic === '') {
    throw badRequest(`Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} topic is not allowed in this channel.`);
  }
  if (policy === 'empty_topic_only' && topic !== '') {
    throw badRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
  }
}
