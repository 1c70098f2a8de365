// Outgoing webhook bots are triggered by messages that committed: a channel message that
// mentions the bot (not silently; group mentions count for the group's members), or a direct
// message with the bot among its participants. Messages sent by bots trigger nothing, so that
// bots cannot loop (Zulip's get_service_bot_events). Each trigger queues one
// `outgoing-webhook` job carrying all the call needs. Nothing here can fail the send.
import type { RealmActor } from '../../realm/actor.js';
import { BotType, type User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import type { OutgoingTrigger } from '../../integrations/outgoing.js';
import type { OutgoingWebhookJob } from '../../jobs/payloads.js';
import { usersInGroupSetting } from '../../permissions/groups.js';
import { formatMessage } from '../../views/messages.js';
import { topicLinksFor } from '../../views/topicLinks.js';
import { apiEmail } from '../../views/users.js';
import { realmUrl } from '../../http/urls.js';
import { encodeHashComponent } from '../../render/mentions.js';
import type { RenderedContent } from '../messages/render.js';

const isServiceBot = (u: User | undefined): u is User => !!u && u.isActive && u.isBot && u.botType === BotType.OUTGOING_WEBHOOK;

/** The bots a message triggers, with why. */
function triggeredBots(actor: RealmActor, m: MessageRecord, rendered: RenderedContent): Array<[User, OutgoingTrigger]> {
  const out: Array<[User, OutgoingTrigger]> = [];
  if (m.streamId !== null) {
    const mentioned = new Set(rendered.mentionedUserIds);
    for (const gid of rendered.mentionedGroupIds) for (const u of usersInGroupSetting(actor.state, gid)) mentioned.add(u.id);
    for (const id of mentioned) {
      const u = actor.user(id);
      if (isServiceBot(u)) out.push([u, 'mention']);
    }
    return out;
  }
  for (const id of actor.state.messaging.conversations.get(m.recipientId)?.userIds ?? []) {
    const u = actor.user(id);
    if (id !== m.senderId && isServiceBot(u)) out.push([u, 'direct_message']);
  }
  return out;
}

/** The link to the message for its owner's notices (Zulip's message_link_url). */
function messageUrl(actor: RealmActor, m: MessageRecord): string {
  const base = `${realmUrl(actor.services.config, actor.realm)}/#narrow`;
  const stream = m.streamId === null ? undefined : actor.state.streams.get(m.streamId);
  if (stream) {
    const channel = `${stream.id}-${encodeHashComponent(stream.name.replace(/ /g, '-'))}`;
    return `${base}/channel/${channel}/topic/${encodeHashComponent(m.topic)}/near/${m.id}`;
  }
  const ids = actor.state.messaging.conversations.get(m.recipientId)?.userIds ?? [];
  return `${base}/dm/${ids.join(',')}-pm/near/${m.id}`;
}

function jobFor(actor: RealmActor, bot: User, trigger: OutgoingTrigger, m: MessageRecord, message: Record<string, unknown>): OutgoingWebhookJob | null {
  const service = actor.state.botServices.get(bot.id);
  if (!service || service.baseUrl === '') return null;
  const { config } = actor.services;
  const url = realmUrl(config, actor.realm);
  const conversation: OutgoingWebhookJob['conversation'] =
    m.streamId === null
      ? { type: 'private', userIds: actor.state.messaging.conversations.get(m.recipientId)?.userIds ?? [] }
      : { type: 'stream', streamId: m.streamId, topic: m.topic };
  return {
    realmId: actor.realm.id,
    subdomain: actor.realm.stringId,
    url: service.baseUrl,
    event: {
      trigger,
      message,
      botId: bot.id,
      botEmail: apiEmail(config, actor.realm, bot),
      botFullName: bot.fullName,
      token: service.token,
      interface: service.interface,
      realmId: actor.realm.id,
      realmHost: new URL(url).host,
    },
    conversation,
    messageUrl: messageUrl(actor, m),
  };
}

/** Called once a message committed; queues the calls of the bots it triggers. */
export function triggerOutgoingWebhooks(actor: RealmActor, sender: User, m: MessageRecord, rendered: RenderedContent): void {
  const { services } = actor;
  try {
    if (sender.isBot) return;
    const bots = triggeredBots(actor, m, rendered);
    if (bots.length === 0) return;
    // What the service sees: the message as a client with apply_markdown=false, and its HTML.
    const shown = (viewer: User) => ({
      ...formatMessage(actor, viewer, m, [], { applyMarkdown: false, clientGravatar: false, allowEmptyTopicName: true }, topicLinksFor(actor, m.topic)),
      rendered_content: m.renderedContent,
    });
    for (const [bot, trigger] of bots) {
      const job = jobFor(actor, bot, trigger, m, shown(bot));
      if (!job) continue;
      services.jobs
        .enqueue('outgoing-webhook', job)
        .catch((err: unknown) => services.log.error({ err, realm: actor.realm.stringId, bot: bot.id, message: m.id }, 'could not queue an outgoing webhook'));
    }
  } catch (err) {
    services.log.error({ err, realm: actor.realm.stringId, message: m.id }, 'could not trigger outgoing webhooks');
  }
}
