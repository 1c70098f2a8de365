// What an outgoing webhook bot says once its service answered (or failed to): its reply, or
// "Failure! …", in the conversation that triggered it, and a notice to its owner when
// something went wrong. Both are sent by the bot itself with the client
// "OutgoingWebhookResponse", without the channel access checks (as Zulip's
// send_response_message): the conversation is one the bot was brought into.
import { ApiError } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { OutgoingWebhookJob } from '../../jobs/payloads.js';
import { ownerNotice, type Outcome } from '../../integrations/outgoing.js';
import { sendMessage } from '../messages/idempotency.js';
import type { SendInput } from '../messages/send.js';

const CLIENT = 'OutgoingWebhookResponse';

function toConversation(job: OutgoingWebhookJob, bot: User, content: string): SendInput {
  const base = { content, readBySender: false, client: CLIENT, internal: true };
  const c = job.conversation;
  if (c.type === 'stream') return { ...base, type: 'stream', to: JSON.stringify(c.streamId), topic: c.topic };
  const others = c.userIds.filter((id) => id !== bot.id);
  return { ...base, type: 'private', to: JSON.stringify(others.length ? others : [bot.id]), topic: undefined };
}

/** Posts the outcome; a conversation that went away meanwhile (archived channel …) is skipped. */
export async function deliverOutgoingOutcome(actor: RealmActor, job: OutgoingWebhookJob, outcome: Outcome): Promise<void> {
  const bot = actor.user(job.event.botId);
  if (!bot || !bot.isActive) return;
  if (outcome.reply !== null) {
    try {
      await sendMessage(actor, bot, toConversation(job, bot, outcome.reply));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      actor.services.log.info({ realm: actor.realm.stringId, bot: bot.id, err: err.message }, 'outgoing webhook reply not posted');
    }
  }
  const owner = bot.botOwnerId === null ? undefined : actor.user(bot.botOwnerId);
  if (outcome.ownerDetails !== null && owner?.isActive) {
    await sendMessage(actor, bot, {
      type: 'private',
      to: JSON.stringify([owner.id]),
      topic: undefined,
      content: ownerNotice(job.messageUrl, bot.fullName, outcome.ownerDetails),
      readBySender: false,
      client: CLIENT,
      internal: true,
    });
  }
}
