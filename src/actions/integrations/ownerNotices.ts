// Notices to a bot's owner about what went wrong with the bot's integration (a channel that
// does not exist, a payload that is not JSON, a missing event header): a direct message from
// Notification Bot, at most one per bot per minute so that a misconfigured tool cannot flood
// its owner (Zulip's send_rate_limited_pm_notification_to_bot_owner).
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { CacheKey } from '../../realm/caches.js';
import { sendInternalMessage } from '../messages/notificationBot.js';

/** Zulip's BOT_OWNER_STREAM_ALERT_WAITPERIOD, one minute. */
const WAIT_MS = 60_000;

/** Bot id → when its owner was last told about it (ms). */
const lastNotice = new CacheKey('bot owner notices', () => new Map<number, number>());

export async function notifyBotOwnerRateLimited(actor: RealmActor, bot: User, content: string): Promise<void> {
  if (actor.realm.deactivated || !bot.isBot || bot.botOwnerId === null) return;
  const seen = actor.caches.get(lastNotice);
  const now = Date.now();
  const last = seen.get(bot.id);
  if (last !== undefined && now - last <= WAIT_MS) return;
  seen.set(bot.id, now);
  await sendInternalMessage(actor, { to: { userIds: [bot.botOwnerId] }, content });
}

export const invalidJsonNotice = (webhookName: string) =>
  `Hi there! It looks like you tried to set up the Zulip ${webhookName} integration,\nbut didn't correctly configure the webhook to send data in the JSON format\nthat this integration expects!`;

export const missingHeaderNotice = (botName: string, path: string, header: string, webhookName: string) =>
  `Hi there!  Your bot ${botName} just sent an HTTP request to ${path} that\nis missing the HTTP ${header} header.  Because this header is how\n${webhookName} indicates the event type, this usually indicates a configuration\nissue, where you either entered the URL for a different integration, or are running\nan older version of the third-party service that doesn't provide that header.\nContact your server administrator if you need help debugging!\n`;

export const missingChannelNotice = (botEmail: string, name: string) =>
  `Your bot \`${botEmail}\` tried to send a message to channel #**${name}**, but that channel does not exist. Click [here](#channels/new) to create it.`;

export const missingChannelIdNotice = (botEmail: string, id: number) =>
  `Your bot \`${botEmail}\` tried to send a message to channel ID ${id}, but there is no channel with that ID.`;
