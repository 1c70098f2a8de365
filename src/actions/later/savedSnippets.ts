// Saved snippets: text a user inserts into messages often (Zulip's zerver/actions/saved_snippets.py).
import { notFound } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { actingUser } from '../../permissions/roles.js';
import { deleteSavedSnippet as deleteRow, findSavedSnippet, insertSavedSnippet, updateSavedSnippet } from '../../db/savedSnippets.js';
import { formatSavedSnippet } from '../../views/later.js';
import { savedSnippetsAddEvent, savedSnippetsRemoveEvent, savedSnippetsUpdateEvent } from '../../events/catalog/index.js';

const snippetDoesNotExist = () => notFound('Saved snippet does not exist.');

/** POST /saved_snippets (title and content already trimmed and checked): the new snippet's id. */
export function createSavedSnippet(actor: RealmActor, user: User, title: string, content: string): Promise<number> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const snippet = await insertSavedSnippet(actor.sql, actor.realm.id, current.id, title, content);
    actor.events.publish(savedSnippetsAddEvent(formatSavedSnippet(snippet)), [current.id]);
    return snippet.id;
  });
}

/** PATCH /saved_snippets/{id}: a request that changes nothing sends no event. */
export function editSavedSnippet(actor: RealmActor, user: User, id: number, change: { title?: string; content?: string }): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    if (change.title === undefined && change.content === undefined) return;
    const snippet = await findSavedSnippet(actor.sql, current.id, id);
    if (!snippet) throw snippetDoesNotExist();
    const updated = await updateSavedSnippet(actor.sql, id, change.title ?? snippet.title, change.content ?? snippet.content);
    actor.events.publish(savedSnippetsUpdateEvent(formatSavedSnippet(updated)), [current.id]);
  });
}

/** DELETE /saved_snippets/{id}. */
export function deleteSavedSnippet(actor: RealmActor, user: User, id: number): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    if (!(await findSavedSnippet(actor.sql, current.id, id))) throw snippetDoesNotExist();
    await deleteRow(actor.sql, id);
    actor.events.publish(savedSnippetsRemoveEvent(id), [current.id]);
  });
}
