// A user's status (Zulip's update_user_status_backend and do_update_user_status): a short text
// and an emoji that other users see next to the name. The legacy `away` flag is the user's
// presence_enabled setting, inverted: setting it changes that setting. Everyone who can see
// the user is told what the request set.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User, UserStatus } from '../../model/types.js';
import { userSettingValue } from '../../model/userSettings.js';
import { actingUser } from '../../permissions/roles.js';
import { canAccessUser, usersWhoCanAccess } from '../../permissions/userAccess.js';
import { saveUserStatus } from '../../db/personal.js';
import { checkEmoji, emojiByName } from '../messages/reactions.js';
import { updateOwnSettings } from './settings.js';
import { userStatusEvent, type StatusChange } from '../../events/catalog/index.js';

export const MAX_STATUS_TEXT_LENGTH = 60;

export interface StatusInput {
  away?: boolean;
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

const EMPTY: UserStatus = { statusText: '', emojiName: '', emojiCode: '', reactionType: 'unicode_emoji' };

/**
 * A user's status in the API's form, only the parts that are set (Zulip's format_user_status);
 * {} for a user who never set one.
 */
export function formatUserStatus(actor: RealmActor, user: User): Record<string, unknown> {
  const s = actor.state.userStatus.get(user.id);
  if (!s) return {};
  const out: Record<string, unknown> = {};
  if (userSettingValue(user.settings, 'presence_enabled') === false) out.away = true;
  if (s.statusText) out.status_text = s.statusText;
  if (s.emojiName) Object.assign(out, { emoji_name: s.emojiName, emoji_code: s.emojiCode, reaction_type: s.reactionType });
  return out;
}

/** GET /users/{user_id}/status; Zulip's access_user_by_id refuses bots and deactivated users. */
export function statusOfUser(actor: RealmActor, viewer: User, userId: number): Record<string, unknown> {
  const target = actor.user(userId);
  if (!target || target.isBot) throw badRequest('No such user');
  if (!target.isActive) throw badRequest('User is deactivated');
  if (!canAccessUser(actor.state, viewer, target)) throw badRequest('Insufficient permission');
  return formatUserStatus(actor, target);
}

/** The change the request asks for, checked; throws what Zulip answers for bad input. */
function checkStatusInput(actor: RealmActor, input: StatusInput): StatusChange {
  const statusText = input.statusText?.trim();
  if (input.away === undefined && statusText === undefined && input.emojiName === undefined) {
    throw badRequest('Client did not pass any new values.');
  }
  if (input.emojiName === undefined && (input.emojiCode !== undefined || input.reactionType !== undefined)) {
    throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  const change: StatusChange = {};
  if (input.away !== undefined) change.away = input.away;
  if (statusText !== undefined) change.status_text = statusText;
  if (input.emojiName === '') {
    Object.assign(change, { emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' });
  } else if (input.emojiName !== undefined) {
    const emoji = input.emojiCode === undefined || input.reactionType === undefined
      ? emojiByName(input.emojiName, actor.state.realmEmoji)
      : checkEmoji(input.emojiName, input.emojiCode, input.reactionType, actor.state.realmEmoji);
    Object.assign(change, { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type });
  }
  return change;
}

/** POST /users/me/status. */
export async function updateUserStatus(actor: RealmActor, user: User, input: StatusInput): Promise<void> {
  // Zulip's human_users_only.
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
  const change = checkStatusInput(actor, input);
  // Zulip: `away` is a deprecated way to change presence_enabled.
  if (change.away !== undefined) await updateOwnSettings(actor, user, { settings: { presence_enabled: !change.away } });
  await actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const before = actor.state.userStatus.get(current.id) ?? EMPTY;
    const next: UserStatus = {
      statusText: change.status_text ?? before.statusText,
      emojiName: change.emoji_name ?? before.emojiName,
      emojiCode: change.emoji_code ?? before.emojiCode,
      reactionType: change.reaction_type ?? before.reactionType,
    };
    await saveUserStatus(actor.sql, actor.realm.id, current.id, next);
    actor.state.userStatus.set(current.id, next);
    actor.events.publish(userStatusEvent(current.id, change), usersWhoCanAccess(actor.state, current));
  });
}
