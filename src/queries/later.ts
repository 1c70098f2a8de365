// A user's scheduled messages, reminders, drafts, saved snippets and navigation views, as the
// GET endpoints and POST /register list them.
import { badRequest } from '../model/errors.js';
import { userSettingValue } from '../model/userSettings.js';
import type { RealmActor } from '../realm/actor.js';
import type { User } from '../model/types.js';
import { MAX_DRAFTS_IN_REGISTER_RESPONSE, REMIND, SEND_LATER } from '../model/later.js';
import { undeliveredOf } from '../db/scheduledMessages.js';
import { draftsOf } from '../db/drafts.js';
import { savedSnippetsOf } from '../db/savedSnippets.js';
import { navigationViewsOf } from '../db/navigationViews.js';
import { formatDraft, formatNavigationView, formatReminder, formatSavedSnippet, formatScheduledMessage } from '../views/later.js';

/** Zulip's draft_endpoint: every drafts endpoint refuses while the user does not synchronize drafts. */
export function checkDraftsSynchronized(user: User): void {
  if (userSettingValue(user.settings, 'enable_drafts_synchronization') !== true) throw badRequest('User has disabled synchronizing drafts.');
}

/** Undelivered scheduled messages (failed ones included), by delivery time. */
export async function listScheduledMessages(actor: RealmActor, user: User): Promise<Record<string, unknown>[]> {
  return (await undeliveredOf(actor.sql, actor.realm.id, user.id, SEND_LATER)).map(formatScheduledMessage);
}

export async function listReminders(actor: RealmActor, user: User): Promise<Record<string, unknown>[]> {
  return (await undeliveredOf(actor.sql, actor.realm.id, user.id, REMIND)).map(formatReminder);
}

/** GET /drafts lists every draft, oldest edit first; register the newest ones, newest first. */
export async function listDrafts(actor: RealmActor, user: User, forRegister: boolean): Promise<Record<string, unknown>[]> {
  if (forRegister) return (await draftsOf(actor.sql, user.id, MAX_DRAFTS_IN_REGISTER_RESPONSE)).map(formatDraft);
  return (await draftsOf(actor.sql, user.id)).reverse().map(formatDraft);
}

export async function listSavedSnippets(actor: RealmActor, user: User): Promise<Record<string, unknown>[]> {
  return (await savedSnippetsOf(actor.sql, user.id)).map(formatSavedSnippet);
}

export async function listNavigationViews(actor: RealmActor, user: User): Promise<Record<string, unknown>[]> {
  return (await navigationViewsOf(actor.sql, user.id)).map(formatNavigationView);
}
