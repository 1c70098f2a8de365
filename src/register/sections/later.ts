// Register sections of what the user keeps for later. They read the database; the register
// turn holds the mailbox until they are done, and every change of these rows is made in the
// mailbox, so the snapshot and the queue's first event follow each other exactly.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { listDrafts, listNavigationViews, listReminders, listSavedSnippets, listScheduledMessages } from '../../queries/later.js';

export const laterSections = {
  async scheduled_messages(actor: RealmActor, user: User) {
    return { scheduled_messages: await listScheduledMessages(actor, user) };
  },
  async reminders(actor: RealmActor, user: User) {
    return { reminders: await listReminders(actor, user) };
  },
  async drafts(actor: RealmActor, user: User) {
    return { drafts: await listDrafts(actor, user, true) };
  },
  async saved_snippets(actor: RealmActor, user: User) {
    return { saved_snippets: await listSavedSnippets(actor, user) };
  },
  async navigation_views(actor: RealmActor, user: User) {
    return { navigation_views: await listNavigationViews(actor, user) };
  },
};
