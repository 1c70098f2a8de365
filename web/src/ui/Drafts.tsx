// Drafts kept in this browser: open the conversation (the draft comes back there) or delete.
import { useState } from 'preact/hooks';
import { store, userName } from '../store';
import { dropDraft, loadDrafts } from '../drafts';
import { narrowHash } from '../narrow';
import { Dialog, closeOverlay } from './Dialog';

export function DraftsView() {
  const [all, setAll] = useState(loadDrafts());
  const list = Object.values(all).sort((a, b) => b.updated - a.updated);
  return (
    <Dialog title="Drafts">
      {list.length === 0 && <p>No drafts.</p>}
      <ul class="drafts">
        {list.map((d) => {
          const narrow =
            d.kind === 'channel' && d.channelId !== undefined
              ? [{ operator: 'channel', operand: d.channelId }, { operator: 'topic', operand: d.topic ?? '' }]
              : [{ operator: 'dm', operand: d.to ?? [] }];
          const where = d.kind === 'channel' ? `#${store.channels.get(d.channelId ?? 0)?.name ?? '?'} › ${d.topic}` : (d.to ?? []).map(userName).join(', ');
          return (
            <li key={d.key}>
              <a href={narrowHash(narrow, (id) => store.channels.get(id)?.name)} onClick={closeOverlay}>
                {where}
              </a>
              <p class="draft-text">{d.content}</p>
              <button type="button" onClick={() => (dropDraft(d.key), setAll(loadDrafts()))}>
                Delete draft
              </button>
            </li>
          );
        })}
      </ul>
    </Dialog>
  );
}
