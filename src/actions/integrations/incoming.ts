// An incoming webhook: the integration turns the tool's request into messages, which the
// authenticated account (normally an incoming webhook bot) posts through the normal send path:
// to the URL's channel (name or id) and topic, or as a direct message to the bot's owner when
// the URL names no channel, as Zulip's check_send_webhook_message does.
import { ApiError, missingArgument } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { Integration, UserDirectory, WebhookMessage } from '../../integrations/types.js';
import { eventPasses } from '../../integrations/fnmatch.js';
import { pyUnquote } from '../../integrations/python.js';
import { apiEmail } from '../../views/users.js';
import { sendMessage } from '../messages/idempotency.js';
import { invalidJsonNotice, missingChannelIdNotice, missingChannelNotice, missingHeaderNotice, notifyBotOwnerRateLimited } from './ownerNotices.js';

export interface IncomingWebhook {
  integration: Integration;
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** The body's exact bytes. */
  raw: Buffer;
  contentType: string;
  /** Query and form parameters. */
  params: Record<string, string>;
  /** The request's path (for the owner's notice about a missing header). */
  path: string;
  stream?: string;
  topic?: string;
  onlyEvents?: string[];
  excludeEvents?: string[];
  unquoteUrlParameters: boolean;
}

function directoryOf(actor: RealmActor): UserDirectory {
  return {
    fullNameByEmail: (email) => actor.state.userByEmail(email)?.fullName,
    guessFullName(name) {
      const wanted = name.toLowerCase();
      const users = actor.state.activeUsers().sort((a, b) => a.id - b.id);
      const match = users.find(
        (u) => u.fullName.toLowerCase() === wanted || apiEmail(actor.services.config, actor.realm, u).toLowerCase().startsWith(wanted),
      );
      return match?.fullName;
    },
  };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decodeBody(raw: Buffer): string | null {
  try {
    return decoder.decode(raw);
  } catch {
    return null;
  }
}

/** The integration's messages; errors the bot's owner should hear about are reported to them. */
async function messagesFor(actor: RealmActor, bot: User, hook: IncomingWebhook) {
  const { integration } = hook;
  try {
    return integration.handle({
      headers: hook.headers,
      raw: hook.raw,
      body: decodeBody(hook.raw),
      contentType: hook.contentType,
      params: hook.params,
      directory: directoryOf(actor),
    });
  } catch (err) {
    // Integrations read untrusted payloads; whatever slipped past their checks is still the
    // payload's fault, not a server error.
    if (!(err instanceof ApiError)) {
      actor.services.log.warn({ integration: integration.name, err: err instanceof Error ? err.message : String(err) }, 'webhook payload not understood');
      throw new ApiError('BAD_REQUEST', `Unable to process the ${integration.displayName} payload`, 400);
    }
    if (err.code === 'INVALID_JSON' && integration.notifyOwnerOnInvalidJson !== false) {
      await notifyBotOwnerRateLimited(actor, bot, invalidJsonNotice(integration.displayName));
    } else if (err.code === 'MISSING_HTTP_EVENT_HEADER') {
      const header = String(err.extra.header);
      await notifyBotOwnerRateLimited(actor, bot, missingHeaderNotice(bot.fullName, hook.path, header, integration.displayName));
    }
    throw err;
  }
}

/** Posts one message where the URL says; a missing channel is told to the owner and nothing is posted. */
async function post(actor: RealmActor, bot: User, hook: IncomingWebhook, message: WebhookMessage, client: string): Promise<void> {
  const base = { content: message.content, readBySender: false, client };
  if (hook.stream === undefined) {
    // Zulip asserts that such requests come from a bot with an owner; other keys must name a channel.
    if (bot.botOwnerId === null) throw missingArgument('stream');
    await sendMessage(actor, bot, { ...base, type: 'private', to: JSON.stringify([bot.botOwnerId]), topic: undefined });
    return;
  }
  const streamParam = hook.unquoteUrlParameters ? pyUnquote(hook.stream) : hook.stream;
  let topic = message.topic;
  if (hook.topic !== undefined) topic = hook.unquoteUrlParameters ? pyUnquote(hook.topic) : hook.topic;
  const byId = /^\d+$/.test(streamParam);
  const name = streamParam.trim();
  if (!byId && name === '') throw new ApiError('BAD_REQUEST', "Channel name can't be empty.", 400);
  const stream = byId ? actor.state.streams.get(Number(streamParam)) : actor.state.streamByName(name);
  const email = bot.deliveryEmail;
  if (!stream) {
    await notifyBotOwnerRateLimited(actor, bot, byId ? missingChannelIdNotice(email, Number(streamParam)) : missingChannelNotice(email, name));
    return;
  }
  if (!actor.state.subscriberIds(stream.id).some((id) => actor.user(id)?.isActive)) {
    await notifyBotOwnerRateLimited(
      actor,
      bot,
      `Your bot \`${email}\` tried to send a message to channel #**${stream.name}**. The channel exists but does not have any subscribers.`,
    );
  }
  await sendMessage(actor, bot, { ...base, type: 'stream', to: JSON.stringify(stream.id), topic });
}

/** Runs an incoming webhook; resolves once its messages (if any) are posted. */
export async function receiveWebhook(actor: RealmActor, bot: User, hook: IncomingWebhook): Promise<void> {
  const result = await messagesFor(actor, bot, hook);
  if (result.kind === 'ignored') return;
  if (result.eventType !== null && !eventPasses(result.eventType, hook.onlyEvents, hook.excludeEvents)) return;
  const client = `Zulip${hook.integration.displayName}Webhook`;
  for (const message of result.messages) await post(actor, bot, hook, message, client);
}
