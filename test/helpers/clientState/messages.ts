// How the reference client applies message events: new messages, edits and moves,
// deletions and flags, to max_message_id, unread_msgs, recent conversations and starred ids.
import { channelLists, type ClientState, type Obj, type RawUnread } from './state.js';

export function applyMessage(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  const m = event.message as Obj;
  if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, m.id);
  const flags = event.flags as string[];
  if (cs.rawUnread && !flags.includes('read')) {
    const raw = cs.rawUnread;
    if (m.type === 'stream') {
      raw.streams.set(m.id, { stream_id: m.stream_id, topic: m.subject });
    } else {
      const others = (m.display_recipient as Obj[]).filter((r) => r.id !== opts.userId);
      if (others.length <= 1) raw.pms.set(m.id, others.length ? others[0]!.id : opts.userId);
      else raw.huddles.set(m.id, (m.display_recipient as Obj[]).map((r) => r.id as number).sort((a, b) => a - b).join(','));
    }
    if (flags.includes('mentioned')) raw.mentions.add(m.id);
    if (flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned')) {
      if (m.type === 'stream') raw.wildcardMentions.add(m.id);
      else raw.mentions.add(m.id);
    }
  }
  if (m.type !== 'stream') {
    if (cs.rawRecent) {
      const others = (m.display_recipient as Obj[]).map((r) => r.id as number).filter((id) => id !== opts.userId).sort((a, b) => a - b);
      cs.rawRecent.set(JSON.stringify(others), m.id);
    }
    return;
  }
  for (const list of channelLists(state)) {
    for (const s of list) if (s.stream_id === m.stream_id && s.first_message_id === null) s.first_message_id = m.id;
  }
}

export function applyUpdateMessage(cs: ClientState, event: Obj): void {
  const raw = cs.rawUnread;
  if (!raw) return;
  for (const id of event.message_ids as number[]) {
    const entry = raw.streams.get(id);
    if (!entry) continue;
    if ('new_stream_id' in event) entry.stream_id = event.new_stream_id;
    if ('subject' in event) entry.topic = event.subject;
  }
  // A content edit can add or remove a mention of this user: the event's flags say which
  // (as the web app's unread.update_message_for_mention reads them).
  const id = event.message_id as number;
  if ('content' in event && (raw.pms.has(id) || raw.streams.has(id) || raw.huddles.has(id))) {
    const flags = event.flags as string[];
    raw.mentions.delete(id);
    raw.wildcardMentions.delete(id);
    if (flags.includes('mentioned')) raw.mentions.add(id);
    else if (flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned')) {
      if (raw.streams.has(id)) raw.wildcardMentions.add(id);
      else raw.mentions.add(id);
    }
  }
}

export function applyDeleteMessage(cs: ClientState, event: Obj): void {
  const { state } = cs;
  const ids: number[] = 'message_id' in event ? [event.message_id] : event.message_ids;
  // Zulip recomputes these from the database; a client can only keep them while the deleted
  // message was not the one they name.
  if ('max_message_id' in state && ids.includes(state.max_message_id)) cs.needsRefetch.add('max_message_id');
  if (cs.rawUnread) for (const id of ids) removeUnread(cs.rawUnread, id);
  if (cs.rawRecent && event.message_type === 'private') {
    for (const max of cs.rawRecent.values()) if (ids.includes(max)) cs.needsRefetch.add('recent_private_conversations');
  }
}

function removeUnread(raw: RawUnread, id: number): void {
  raw.pms.delete(id);
  raw.streams.delete(id);
  raw.huddles.delete(id);
  raw.mentions.delete(id);
  raw.wildcardMentions.delete(id);
}

export function applyFlags(cs: ClientState, event: Obj): void {
  const { state } = cs;
  const raw = cs.rawUnread;
  if (raw && event.flag === 'read' && event.op === 'add') {
    for (const id of event.messages as number[]) removeUnread(raw, id);
  }
  if (raw && event.flag === 'read' && event.op === 'remove') {
    for (const [idText, details] of Object.entries(event.message_details as Record<string, Obj>)) {
      const id = Number(idText);
      if (details.type === 'private') {
        const others = (details.user_ids as number[]).filter((u) => u !== cs.opts.userId);
        if (others.length === 0) raw.pms.set(id, cs.opts.userId);
        else if (others.length === 1) raw.pms.set(id, others[0]!);
        else raw.huddles.set(id, [...others, cs.opts.userId].sort((a, b) => a - b).join(','));
        if (details.mentioned) raw.mentions.add(id);
      } else {
        raw.streams.set(id, { stream_id: details.stream_id, topic: details.topic });
        // The server says whether the message counts as a mention (muting included).
        if (details.mentioned) raw.mentions.add(id);
      }
    }
  }
  if (event.flag === 'starred' && 'starred_messages' in state) {
    if (event.op === 'add') state.starred_messages = [...state.starred_messages, ...event.messages];
    else state.starred_messages = (state.starred_messages as number[]).filter((id) => !(event.messages as number[]).includes(id));
  }
}

