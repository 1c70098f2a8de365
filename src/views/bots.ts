// Bots as their owners and administrators see them (register `realm_bots`, `realm_bot` events).
import type { RealmActor } from '../realm/actor.js';
import type { BotSettings, User } from '../model/types.js';
import { isAdmin } from '../model/roles.js';
import { avatarUrl } from './users.js';
import { CacheKey } from '../realm/caches.js';

export function botSettingsOf(actor: RealmActor, bot: User): BotSettings {
  return (
    actor.state.botSettings.get(bot.id) ?? {
      userId: bot.id,
      defaultSendingStreamId: null,
      defaultEventsRegisterStreamId: null,
      defaultAllPublicStreams: false,
    }
  );
}

export const streamName = (actor: RealmActor, id: number | null) => (id === null ? null : (actor.state.streams.get(id)?.name ?? null));

/** A bot's `services`: an outgoing webhook bot's URL, interface and token; nothing for other bots. */
export function botServicesOf(actor: RealmActor, bot: User): Array<{ base_url: string; interface: number; token: string }> {
  const s = actor.state.botServices.get(bot.id);
  return s ? [{ base_url: s.baseUrl, interface: s.interface, token: s.token }] : [];
}

/** The bot object of register `realm_bots` and `realm_bot` add events. */
export function formatBot(actor: RealmActor, bot: User): Record<string, unknown> {
  const s = botSettingsOf(actor, bot);
  return {
    email: bot.deliveryEmail,
    user_id: bot.id,
    full_name: bot.fullName,
    bot_type: bot.botType,
    role: bot.role,
    is_active: bot.isActive,
    api_key: bot.apiKey,
    default_sending_stream: streamName(actor, s.defaultSendingStreamId),
    default_events_register_stream: streamName(actor, s.defaultEventsRegisterStreamId),
    default_all_public_streams: s.defaultAllPublicStreams,
    avatar_url: avatarUrl(bot),
    owner_id: bot.botOwnerId,
    services: botServicesOf(actor, bot),
  };
}

/** Per actor: the realm's bots, for the users they were found among (state.usersVersion). */
const realmBots = new CacheKey('realm bots', () => ({ usersVersion: -1, bots: [] as User[] }));

/** The bots a user administers: all of them for administrators, else their own. */
export function botsVisibleTo(actor: RealmActor, user: User): User[] {
  // Found once per change of users, not by walking every user (100,000 of them) per register.
  const known = actor.caches.get(realmBots);
  if (known.usersVersion !== actor.state.usersVersion) {
    known.bots = [...actor.state.users.values()].filter((u) => u.isBot);
    known.usersVersion = actor.state.usersVersion;
  }
  return known.bots.filter((u) => isAdmin(user) || u.botOwnerId === user.id);
}
