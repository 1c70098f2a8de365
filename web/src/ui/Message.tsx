// One message of the feed: sender, time, the content exactly as the server rendered it,
// reactions (buttons named by their emoji), and the actions on it.
import { memo } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Message as Msg, Reaction } from '../types';
import { store, changed, userName } from '../store';
import { emojiChar, searchEmoji, showEmojiGlyphs } from '../emoji';
import { deleteMessage, rawContent, saveEdit, toggleReaction, toggleStar } from '../actions';

interface Props {
  m: Msg;
  showSender: boolean;
  selected: boolean;
  editing: boolean;
}

function ReactionGlyph({ r }: { r: Reaction }) {
  if (r.reaction_type === 'realm_emoji') {
    const e = store.realmEmoji[r.emoji_code];
    if (e) return <img class="emoji-img" src={e.source_url} alt="" />;
  }
  if (r.reaction_type === 'unicode_emoji') return <span aria-hidden="true">{emojiChar(r.emoji_code)}</span>;
  return <span aria-hidden="true">:{r.emoji_name}:</span>;
}

function Reactions({ m }: { m: Msg }) {
  if (m.reactions.length === 0) return null;
  const groups = new Map<string, Reaction[]>();
  for (const r of m.reactions) {
    const key = `${r.reaction_type}:${r.emoji_code}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return (
    <div class="reactions">
      {[...groups.values()].map((list) => {
        const r = list[0]!;
        const mine = list.some((x) => x.user_id === store.me);
        return (
          <button
            type="button"
            key={`${r.reaction_type}:${r.emoji_code}`}
            class={`reaction ${mine ? 'mine' : ''}`}
            aria-label={r.emoji_name}
            aria-pressed={mine}
            title={`${list.map((x) => userName(x.user_id)).join(', ')} (:${r.emoji_name}:)`}
            onClick={() => void toggleReaction(m, { name: r.emoji_name, code: r.emoji_code, reactionType: r.reaction_type as 'unicode_emoji' })}
          >
            <ReactionGlyph r={r} /> <span aria-hidden="true">{list.length}</span>
          </button>
        );
      })}
    </div>
  );
}

export function EmojiPicker({ onPick, onClose }: { onPick: (e: ReturnType<typeof searchEmoji>[number]) => void; onClose: () => void }) {
  const [q, setQ] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const results = searchEmoji(q || 'smile', 24);
  return (
    <div class="picker" role="dialog" aria-label="Emoji" onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), onClose())}>
      <input ref={input} type="search" aria-label="Search emoji" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      <div class="picker-results">
        {results.map((e) => (
          <button type="button" key={e.name} aria-label={e.name} title={`:${e.name}:`} onClick={() => (onPick(e), onClose())}>
            {e.url ? <img class="emoji-img" src={e.url} alt="" /> : emojiChar(e.code)}
          </button>
        ))}
        {results.length === 0 && <p>No emoji match.</p>}
      </div>
    </div>
  );
}

function EditBox({ m }: { m: Msg }) {
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    void rawContent(m.id).then(setText);
  }, [m.id]);
  const close = () => ((store.editingId = null), changed());
  const save = async (e: Event) => {
    e.preventDefault();
    if (text !== null && (await saveEdit(m.id, text))) close();
  };
  if (text === null) return <p>Loading…</p>;
  return (
    <form class="edit" onSubmit={save} onKeyDown={(e) => e.key === 'Escape' && (e.stopPropagation(), close())}>
      <textarea aria-label="Edit message" value={text} onInput={(e) => setText(e.currentTarget.value)} ref={(el) => el?.focus()} />
      <div class="row">
        <button type="submit">Save</button>
        <button type="button" onClick={close}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function MessageItem({ m, showSender, selected, editing }: Props) {
  const content = useRef<HTMLDivElement>(null);
  const [picking, setPicking] = useState(false);
  useEffect(() => {
    if (content.current) showEmojiGlyphs(content.current);
  }, [m.content]);
  const own = m.sender_id === store.me;
  const starred = m.flags.includes('starred');
  const time = new Date(m.timestamp * 1000);
  return (
    <div class={`message ${selected ? 'selected' : ''} ${m.flags.includes('read') ? '' : 'unread'}`} onClick={() => store.selectedId !== m.id && ((store.selectedId = m.id), changed())}>
      {showSender && (
        <div class="sender">
          <span class="avatar" aria-hidden="true">
            {(m.sender_full_name || '?').slice(0, 1).toUpperCase()}
          </span>
          <strong>{m.sender_full_name}</strong>
        </div>
      )}
      <time dateTime={time.toISOString()} title={time.toLocaleString()}>
        {time.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}
      </time>
      {editing ? <EditBox m={m} /> : <div class="content" ref={content} dangerouslySetInnerHTML={{ __html: m.content }} />}
      {m.last_edit_timestamp && !editing && <span class="edited">(edited)</span>}
      <Reactions m={m} />
      <div class="actions">
        <button type="button" aria-label="Add reaction" aria-expanded={picking} onClick={() => setPicking(!picking)}>
          ☺
        </button>
        <button type="button" aria-label={starred ? 'Unstar message' : 'Star message'} aria-pressed={starred} onClick={() => void toggleStar(m)}>
          {starred ? '★' : '☆'}
        </button>
        {own && (
          <button type="button" aria-label="Edit message" onClick={() => ((store.editingId = m.id), changed())}>
            ✎
          </button>
        )}
        {own && (
          <button type="button" aria-label="Delete message" onClick={() => confirm('Delete this message?') && void deleteMessage(m.id)}>
            🗑
          </button>
        )}
      </div>
      {picking && <EmojiPicker onPick={(e) => void toggleReaction(m, e)} onClose={() => setPicking(false)} />}
    </div>
  );
}

export const MessageView = memo(MessageItem);
