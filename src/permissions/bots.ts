// Who administers a bot, and who hears about it.
import { badRequest } from '../model/errors.js';
import type { RealmState } from '../model/realmState.js';
import type { User } from '../model/types.js';
import { isAdmin } from '../model/roles.js';

/** Who hears about a bot: its owner and the realm's administrators. */
export function botAudience(state: RealmState, bot: User): number[] {
  const ids = new Set(state.activeUsers().filter((u) => isAdmin(u) && !u.isBot).map((u) => u.id));
  if (bot.botOwnerId !== null && state.users.get(bot.botOwnerId)?.isActive) ids.add(bot.botOwnerId);
  return [...ids];
}

/** Zulip's access_bot_by_id: the bot, if the user is an administrator or its owner. */
export function botForAdmin(state: RealmState, user: User, botId: number): User {
  const bot = state.users.get(botId);
  if (!bot || !bot.isBot) throw badRequest('No such bot');
  if (!isAdmin(user) && bot.botOwnerId !== user.id) throw badRequest('Insufficient permission');
  return bot;
}
