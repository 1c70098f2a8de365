// The compose box: a channel, topic and message, or "To" and a message for direct messages;
// Markdown preview rendered by the server; mention, emoji, people and topic suggestions;
// drafts kept as you type; typing notices to the other side.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, errorText, uploadFile } from '../api';
import { store, notify, byName } from '../store';
import { termOf, type Narrow } from '../narrow';
import { applySuggestion, messageSuggestions, parseRecipients, recipientSuggestions, type Suggestion } from '../autocomplete';
import { dropDraft, loadDrafts, putDraft, type Draft } from '../drafts';
import { showEmojiGlyphs } from '../emoji';

type Kind = 'channel' | 'dm';

interface Target {
  kind: Kind;
  channelId: number | null;
  topic: string;
  to: string;
}

/** Where the shortcuts (c, x, r) and the sidebar ask the compose box to go. */
export const composeControl = { open: (_kind: Kind, _fromSelected?: boolean) => {} };

function targetFromNarrow(narrow: Narrow, previous: Target): Target {
  const channel = termOf(narrow, 'channel');
  if (channel && typeof channel.operand === 'number') {
    const topic = termOf(narrow, 'topic');
    return { kind: 'channel', channelId: channel.operand, topic: topic ? String(topic.operand) : '', to: previous.to };
  }
  const dm = termOf(narrow, 'dm');
  if (dm && Array.isArray(dm.operand)) {
    const emails = dm.operand.map((id) => store.users.get(id)?.email).filter(Boolean);
    return { kind: 'dm', channelId: previous.channelId, topic: previous.topic, to: emails.join(', ') };
  }
  return previous;
}

function draftKey(t: Target): string {
  if (t.kind === 'channel') return `c:${t.channelId}:${t.topic.toLowerCase()}`;
  return `d:${parseRecipients(t.to).ids.sort((a, b) => a - b).join(',')}`;
}

function Suggestions({ list, active, id, onPick }: { list: Suggestion[]; active: number; id: string; onPick: (s: Suggestion) => void }) {
  if (list.length === 0) return null;
  return (
    <ul class="suggestions" role="listbox" id={id} aria-label="Suggestions">
      {list.map((s, i) => (
        <li
          key={s.label}
          id={`${id}-${i}`}
          role="option"
          aria-selected={i === active}
          onMouseDown={(e) => {
            e.preventDefault();
            onPick(s);
          }}
        >
          {s.label} {s.detail && <small>{s.detail}</small>}
        </li>
      ))}
    </ul>
  );
}

export function Compose() {
  const subs = useMemo(() => [...store.subs.values()].sort((a, b) => byName(a.name, b.name)), [store.channelsVersion]);
  // A thousand options are made once per change of the channels, not on every render.
  const channelOptions = useMemo(
    () =>
      subs.map((s) => (
        <option key={s.stream_id} value={String(s.stream_id)}>
          #{s.name}
        </option>
      )),
    [subs],
  );
  const [target, setTarget] = useState<Target>(() => ({ kind: 'channel', channelId: subs[0]?.stream_id ?? null, topic: '', to: '' }));
  const [content, setContent] = useState('');
  const [preview, setPreview] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const [uploading, setUploading] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const latestContent = useRef(content);
  latestContent.current = content;
  // Where the caret goes once a picked suggestion is in the text: set as soon as the text is
  // rendered, before the next key, so that typing on at once lands after the suggestion.
  const caretAfterRender = useRef<number | null>(null);
  useLayoutEffect(() => {
    if (caretAfterRender.current === null) return;
    textarea.current?.setSelectionRange(caretAfterRender.current, caretAfterRender.current);
    caretAfterRender.current = null;
  }, [content]);
  const [suggest, setSuggest] = useState<{ field: 'content' | 'to'; list: Suggestion[]; active: number }>({ field: 'content', list: [], active: 0 });
  const textarea = useRef<HTMLTextAreaElement>(null);
  const topicInput = useRef<HTMLInputElement>(null);
  const toInput = useRef<HTMLInputElement>(null);
  const previewBox = useRef<HTMLDivElement>(null);
  const typing = useRef({ sentAt: 0, stopTimer: 0 as unknown as ReturnType<typeof setTimeout> });
  const narrowGen = store.feed?.generation;

  // The recipient as last rendered: the effect below may run after the person typed.
  const latest = useRef(target);
  latest.current = target;

  // A new narrow sets the recipient; its draft, if any, comes back.
  useEffect(() => {
    if (!store.feed) return;
    const typed = latest.current;
    let next = targetFromNarrow(store.feed.narrow, typed);
    // A topic typed before the channel's view opened stays, and so does the message with it.
    if (next.kind === 'channel' && next.channelId === typed.channelId && !next.topic) next = { ...next, topic: typed.topic };
    if (draftKey(next) === draftKey(typed)) return;
    setTarget(next);
    const draft = loadDrafts()[draftKey(next)];
    setContent(draft?.content ?? '');
    setPreview(null);
  }, [narrowGen]);

  useEffect(() => {
    if (previewBox.current) showEmojiGlyphs(previewBox.current);
  }, [preview]);

  composeControl.open = (kind, fromSelected) => {
    let next: Target = { ...target, kind };
    const m = fromSelected && store.selectedId !== null ? store.messages.get(store.selectedId) : undefined;
    if (m && m.type === 'stream') next = { ...next, kind: 'channel', channelId: m.stream_id ?? null, topic: m.subject };
    if (m && m.type === 'private' && Array.isArray(m.display_recipient)) {
      const emails = m.display_recipient.filter((r) => r.id !== store.me).map((r) => r.email);
      next = { ...next, kind: 'dm', to: (emails.length ? emails : [m.sender_email]).join(', ') };
    }
    setTarget(next);
    setTimeout(() => (kind === 'dm' && !next.to ? toInput.current : fromSelected || next.topic ? textarea.current : topicInput.current)?.focus(), 0);
  };

  const saveDraft = (text: string, t = target) => {
    const d: Draft = { key: draftKey(t), kind: t.kind, content: text, updated: Date.now() };
    if (t.kind === 'channel') Object.assign(d, { channelId: t.channelId ?? undefined, topic: t.topic });
    else d.to = parseRecipients(t.to).ids;
    putDraft(d);
  };

  const typingParams = () => {
    if (target.kind === 'channel') return target.channelId === null ? null : { type: 'stream', stream_id: target.channelId, topic: target.topic };
    const { ids } = parseRecipients(target.to);
    return ids.length ? { type: 'direct', to: ids } : null;
  };
  const notifyTyping = (op: 'start' | 'stop') => {
    const params = typingParams();
    if (!params) return;
    void api('POST', '/typing', { ...params, op }).catch(() => undefined);
  };
  const onTyped = () => {
    const t = typing.current;
    if (Date.now() - t.sentAt > Number(store.realm.server_typing_started_wait_period_milliseconds ?? 10_000)) {
      t.sentAt = Date.now();
      notifyTyping('start');
    }
    clearTimeout(t.stopTimer);
    t.stopTimer = setTimeout(() => {
      t.sentAt = 0;
      notifyTyping('stop');
    }, Number(store.realm.server_typing_stopped_wait_period_milliseconds ?? 5000));
  };

  const onContentInput = (el: HTMLTextAreaElement) => {
    setContent(el.value);
    saveDraft(el.value);
    setSuggest({ field: 'content', list: messageSuggestions(el.value, el.selectionStart ?? el.value.length), active: 0 });
    if (el.value) onTyped();
  };

  const pick = (s: Suggestion) => {
    if (suggest.field === 'content') {
      const r = applySuggestion(content, s);
      setContent(r.text);
      saveDraft(r.text);
      caretAfterRender.current = r.caret;
      textarea.current?.focus();
    } else {
      setTarget({ ...target, to: applySuggestion(target.to, s).text });
      toInput.current?.focus();
    }
    setSuggest({ ...suggest, list: [] });
  };

  // Each file is uploaded, then linked in the message as Zulip's apps link it: [name](url).
  const attach = async (input: HTMLInputElement) => {
    const files = [...(input.files ?? [])];
    input.value = '';
    await attachFiles(files);
  };

  // Files pasted or dropped into the message box go the same way as picked ones.
  const takeFiles = (e: Event, list: FileList | null | undefined) => {
    const files = [...(list ?? [])];
    if (files.length === 0) return;
    e.preventDefault();
    void attachFiles(files);
  };

  const attachFiles = async (files: File[]) => {
    if (files.length === 0) return;
    setUploading(true);
    let text = latestContent.current;
    try {
      for (const file of files) {
        const r = await uploadFile(file);
        text = `${text}${text && !text.endsWith('\n') ? '\n' : ''}[${r.filename}](${r.url})\n`;
        setContent(text);
        saveDraft(text);
      }
    } catch (err) {
      notify(`Could not attach the file: ${errorText(err)}`);
    } finally {
      setUploading(false);
      textarea.current?.focus();
    }
  };

  const send = async () => {
    if (!content.trim() || sending) return;
    let params: Record<string, unknown>;
    if (target.kind === 'channel') {
      if (target.channelId === null) return notify('Choose a channel.');
      params = { type: 'stream', to: target.channelId, topic: target.topic, content };
    } else {
      const { ids, unknown } = parseRecipients(target.to);
      if (unknown.length) return notify(`Unknown recipient: ${unknown.join(', ')}`);
      if (ids.length === 0) return notify('Add a recipient.');
      params = { type: 'direct', to: ids, content };
    }
    setSending(true);
    try {
      await api('POST', '/messages', params);
      dropDraft(draftKey(target));
      setContent('');
      setPreview(null);
      clearTimeout(typing.current.stopTimer);
      typing.current.sentAt = 0;
      notifyTyping('stop');
    } catch (err) {
      notify(errorText(err));
    } finally {
      setSending(false);
    }
  };

  const togglePreview = async () => {
    if (preview !== null) return setPreview(null);
    try {
      const r = await api<{ rendered: string }>('POST', '/messages/render', { content: content || ' ' });
      setPreview(r.rendered);
    } catch (err) {
      notify(errorText(err));
    }
  };

  const onKeyDown = (e: KeyboardEvent, field: 'content' | 'to') => {
    if (suggest.list.length && suggest.field === field) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const n = suggest.list.length;
        setSuggest({ ...suggest, active: (suggest.active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n });
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(suggest.list[suggest.active]!);
        return;
      }
      if (e.key === 'Escape') {
        e.stopPropagation();
        setSuggest({ ...suggest, list: [] });
        return;
      }
    }
    if (field === 'content' && e.key === 'Enter') {
      const enterSends = store.settings.enter_sends === true;
      if ((enterSends && !e.shiftKey && !e.ctrlKey) || (!enterSends && (e.ctrlKey || e.metaKey))) {
        e.preventDefault();
        void send();
      }
    }
    if (e.key === 'Escape') (e.currentTarget as HTMLElement).blur();
  };

  const topics = target.channelId === null ? [] : [...(store.topics.get(target.channelId)?.values() ?? [])].slice(0, 50);
  return (
    <form
      class="compose"
      aria-label="Compose"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <div class="row recipient-row">
        <div class="tabs" role="group" aria-label="Message type">
          <button type="button" aria-pressed={target.kind === 'channel'} onClick={() => setTarget({ ...target, kind: 'channel' })}>
            Channel message
          </button>
          <button type="button" aria-pressed={target.kind === 'dm'} onClick={() => setTarget({ ...target, kind: 'dm' })}>
            Direct message
          </button>
        </div>
        {target.kind === 'channel' ? (
          <>
            <label class="inline">
              <span class="sr-only">Channel</span>
              <select aria-label="Channel" value={String(target.channelId ?? '')} onChange={(e) => setTarget({ ...target, channelId: Number(e.currentTarget.value) })}>
                {channelOptions}
              </select>
            </label>
            <input ref={topicInput} aria-label="Topic" placeholder="Topic" list="compose-topics" value={target.topic} maxLength={Number(store.realm.max_topic_length ?? 60)} onInput={(e) => setTarget({ ...target, topic: e.currentTarget.value })} />
            <datalist id="compose-topics">
              {topics.map((t) => (
                <option key={t.name} value={t.name} />
              ))}
            </datalist>
          </>
        ) : (
          <div class="field">
            <input
              ref={toInput}
              aria-label="To"
              placeholder="To: emails, separated by commas"
              value={target.to}
              role="combobox"
              aria-expanded={suggest.field === 'to' && suggest.list.length > 0}
              aria-controls={suggest.field === 'to' && suggest.list.length ? 'to-suggestions' : undefined}
              aria-autocomplete="list"
              aria-activedescendant={suggest.field === 'to' && suggest.list.length ? `to-suggestions-${suggest.active}` : undefined}
              onInput={(e) => {
                setTarget({ ...target, to: e.currentTarget.value });
                setSuggest({ field: 'to', list: recipientSuggestions(e.currentTarget.value), active: 0 });
              }}
              onKeyDown={(e) => onKeyDown(e, 'to')}
              onBlur={() => setTimeout(() => setSuggest((s) => (s.field === 'to' ? { ...s, list: [] } : s)), 150)}
            />
            {suggest.field === 'to' && <Suggestions list={suggest.list} active={suggest.active} id="to-suggestions" onPick={pick} />}
          </div>
        )}
      </div>
      <div class="field">
        {preview !== null ? (
          <div class="preview content" ref={previewBox} aria-label="Preview" dangerouslySetInnerHTML={{ __html: preview }} />
        ) : (
          <textarea
            ref={textarea}
            aria-label="Message"
            placeholder={store.settings.enter_sends === true ? 'Message (Enter sends)' : 'Message (Ctrl+Enter sends)'}
            value={content}
            rows={3}
            aria-controls={suggest.field === 'content' && suggest.list.length ? 'content-suggestions' : undefined}
            aria-autocomplete="list"
            aria-activedescendant={suggest.field === 'content' && suggest.list.length ? `content-suggestions-${suggest.active}` : undefined}
            onInput={(e) => onContentInput(e.currentTarget)}
            onKeyDown={(e) => onKeyDown(e, 'content')}
            onBlur={() => setTimeout(() => setSuggest((s) => (s.field === 'content' ? { ...s, list: [] } : s)), 150)}
            onPaste={(e) => takeFiles(e, e.clipboardData?.files)}
            onDragOver={(e) => e.dataTransfer?.types.includes('Files') && e.preventDefault()}
            onDrop={(e) => takeFiles(e, e.dataTransfer?.files)}
          />
        )}
        {suggest.field === 'content' && <Suggestions list={suggest.list} active={suggest.active} id="content-suggestions" onPick={pick} />}
      </div>
      <div class="row">
        <button type="submit" disabled={sending || !content.trim()}>
          Send
        </button>
        <button type="button" aria-pressed={preview !== null} onClick={() => void togglePreview()}>
          Preview
        </button>
        <button type="button" disabled={uploading} onClick={() => fileInput.current?.click()}>
          {uploading ? 'Uploading…' : 'Attach a file'}
        </button>
        <input ref={fileInput} type="file" multiple hidden aria-label="File to attach" onChange={(e) => void attach(e.currentTarget)} />
      </div>
    </form>
  );
}

