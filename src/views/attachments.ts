// The API form of an upload (Zulip's Attachment.to_dict): times in milliseconds.
import type { AttachmentRow, LinkedMessage } from '../db/attachments.js';
import type { AttachmentObject } from '../events/catalog/index.js';

export function attachmentView(a: AttachmentRow, linked: LinkedMessage[]): AttachmentObject {
  return {
    id: a.id,
    name: a.fileName,
    path_id: a.pathId,
    size: a.size,
    create_time: a.createTime.getTime(),
    messages: linked.filter((l) => l.attachmentId === a.id).map((l) => ({ id: l.messageId, date_sent: l.dateSent.getTime() })),
  };
}
