// GET /streams/{stream_id}/email_address: the channel's gateway address for the caller and a
// sender (the Email Gateway bot by default, the caller, or a bot the caller administers).
// The token is created on first request and kept; without EMAIL_GATEWAY_DOMAIN the address is
// empty, as Zulip's without EMAIL_GATEWAY_PATTERN.
import { randomBytes } from 'node:crypto';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { canAccessChannelContent } from '../../permissions/channelAccess.js';
import { botForAdmin } from '../../permissions/bots.js';
import { actingUser } from '../../permissions/roles.js';
import { channelEmailToken } from '../../db/channelEmail.js';
import { channelEmailAddress } from '../../model/emailAddresses.js';
import { invalidChannelId } from '../channels/channels.js';
import { EMAIL_GATEWAY_BOT, ensureSystemBot, findSystemBot } from '../messages/notificationBot.js';

export async function channelEmailAddressFor(actor: RealmActor, acting: User, streamId: number, senderId: number | undefined): Promise<string> {
  const user = actingUser(actor.state, acting);
  const stream = actor.state.streams.get(streamId);
  if (!stream || !canAccessChannelContent(actor.state, user, stream)) throw invalidChannelId();
  const gatewayBot = findSystemBot(actor, EMAIL_GATEWAY_BOT);
  let sender: User;
  if (senderId === undefined || senderId === gatewayBot?.id) sender = gatewayBot ?? (await ensureSystemBot(actor, EMAIL_GATEWAY_BOT));
  else if (senderId === user.id) sender = user;
  else sender = botForAdmin(actor.state, user, senderId);
  const token = await channelEmailToken(actor.sql, actor.realm.id, stream.id, user.id, sender.id, randomBytes(16).toString('hex'));
  const domain = actor.services.config.EMAIL_GATEWAY_DOMAIN;
  return domain ? channelEmailAddress(stream.name, token, domain, ['show-sender']) : '';
}
