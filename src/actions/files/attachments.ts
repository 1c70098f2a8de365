// Uploads as messages use them: a message that links an upload claims it (Zulip's
// do_claim_attachments), an edit relinks, the uploader deletes one, and the cleanup job
// removes uploads no message links after a grace period. The uploader hears of each change
// through `attachment` events.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import {
  attachmentById, attachmentsByPaths, deleteAttachmentRow, linkAttachments, messagesLinking, realmUploadSpaceUsed,
  unlinkAttachmentsExcept, type AttachmentRow,
} from '../../db/attachments.js';
import { attachmentChangedEvent, attachmentRemovedEvent, type AttachmentObject } from '../../events/catalog/index.js';
import { attachmentView } from '../../views/attachments.js';
import { canReadAttachment } from '../../queries/attachments.js';
import { uploadPathIdsIn } from '../../model/uploads.js';
import { realmUrl } from '../../http/urls.js';

/** Tells each uploader how their uploads stand now (their linking messages). */
async function publishUpdates(actor: RealmActor, rows: AttachmentRow[]): Promise<AttachmentObject[]> {
  if (rows.length === 0) return [];
  const linked = await messagesLinking(actor.sql, rows.map((r) => r.id));
  const used = await realmUploadSpaceUsed(actor.sql, actor.realm.id);
  const views = rows.map((r) => attachmentView(r, linked));
  rows.forEach((r, i) => actor.events.publish(attachmentChangedEvent('update', views[i]!, used), [r.ownerId]));
  return views;
}

/**
 * The uploads a message's links name, that its sender may attach: their own, or another's
 * they can already read (forwarding a file someone shared with them).
 */
async function claimable(actor: RealmActor, sender: User, links: string[]): Promise<AttachmentRow[]> {
  const pathIds = uploadPathIdsIn(links, actor.realm.id, realmUrl(actor.services.config, actor.realm));
  if (pathIds.length === 0) return [];
  const rows = await attachmentsByPaths(actor.sql, actor.realm.id, pathIds);
  const out: AttachmentRow[] = [];
  for (const r of rows) if (await canReadAttachment(actor, sender, r)) out.push(r);
  return out;
}

/** After a message was sent: links the uploads it names to it. */
export async function claimAttachments(actor: RealmActor, sender: User, messageId: number, links: string[]): Promise<void> {
  const rows = await claimable(actor, sender, links);
  if (rows.length === 0) return;
  await linkAttachments(actor.sql, messageId, rows.map((r) => r.id));
  await publishUpdates(actor, rows);
}

/**
 * After a content edit: links the uploads the new content names and unlinks the others.
 * Answers the editor's uploads that no message links any more (Zulip's `detached_uploads`).
 */
export async function relinkAttachments(actor: RealmActor, editor: User, messageId: number, links: string[]): Promise<AttachmentObject[]> {
  const rows = await claimable(actor, editor, links);
  const unlinked = await unlinkAttachmentsExcept(actor.sql, messageId, rows.map((r) => r.id));
  await linkAttachments(actor.sql, messageId, rows.map((r) => r.id));
  const touched = new Map<number, AttachmentRow>(rows.map((r) => [r.id, r]));
  for (const id of unlinked) {
    if (touched.has(id)) continue;
    const row = await attachmentById(actor.sql, actor.realm.id, id);
    if (row) touched.set(id, row);
  }
  const views = await publishUpdates(actor, [...touched.values()]);
  return views.filter((v) => v.messages.length === 0 && unlinked.includes(v.id) && touched.get(v.id)!.ownerId === editor.id);
}

/** Removes an upload's row and bytes, and tells its uploader. */
export async function removeAttachment(actor: RealmActor, a: AttachmentRow): Promise<void> {
  await deleteAttachmentRow(actor.sql, a.id);
  await actor.services.storage.delete('uploads', a.pathId);
  actor.events.publish(attachmentRemovedEvent(a.id, await realmUploadSpaceUsed(actor.sql, actor.realm.id)), [a.ownerId]);
}

/** DELETE /attachments/{id}: the uploader deletes one of their files (messages keep a dead link). */
export async function deleteAttachment(actor: RealmActor, user: User, id: number): Promise<void> {
  const a = await attachmentById(actor.sql, actor.realm.id, id);
  if (!a || a.ownerId !== user.id) throw badRequest('Invalid attachment');
  await removeAttachment(actor, a);
}
