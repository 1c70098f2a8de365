// Drafts, kept in this browser until the server stores them: one per conversation, saved as
// the message is typed, removed when it is sent.
import { store } from './store';

export interface Draft {
  key: string;
  kind: 'channel' | 'dm';
  channelId?: number;
  topic?: string;
  to?: number[];
  content: string;
  updated: number;
}

const storageKey = () => `drafts:${location.host}:${store.me}`;

export function loadDrafts(): Record<string, Draft> {
  try {
    return JSON.parse(localStorage.getItem(storageKey()) ?? '{}') as Record<string, Draft>;
  } catch {
    return {};
  }
}

function save(all: Record<string, Draft>): void {
  try {
    localStorage.setItem(storageKey(), JSON.stringify(all));
  } catch {
    // Storage full or disabled: drafts are a convenience.
  }
}

export function putDraft(d: Draft): void {
  const all = loadDrafts();
  if (d.content.trim() === '') delete all[d.key];
  else all[d.key] = d;
  save(all);
}

export function dropDraft(key: string): void {
  const all = loadDrafts();
  delete all[key];
  save(all);
}
