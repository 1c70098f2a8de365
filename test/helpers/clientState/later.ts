// How the reference client applies events about what a user keeps for later: scheduled
// messages, reminders, drafts, saved snippets and navigation views (Zulip's apply_event).
import { clone, type ClientState, type Obj } from './state.js';

const byDelivery = (a: Obj, b: Obj) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp;

/** `scheduled_messages` and `reminders`: lists kept in delivery order. */
export function applyScheduled(cs: ClientState, event: Obj, key: 'scheduled_messages' | 'reminders', idKey: string): void {
  const { state } = cs;
  if (!(key in state)) return;
  const list = state[key] as Obj[];
  if (event.op === 'add') {
    list.push(...clone(event[key] as Obj[]));
  } else if (event.op === 'update') {
    const updated = clone(event.scheduled_message as Obj);
    const index = list.findIndex((m) => m[idKey] === updated[idKey]);
    if (index >= 0) list[index] = updated;
  } else if (event.op === 'remove') {
    state[key] = list.filter((m) => m[idKey] !== event[idKey]);
  } else {
    throw new Error(`unknown ${key} event ${JSON.stringify(event)}`);
  }
  (state[key] as Obj[]).sort(byDelivery);
}

export function applyDrafts(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('drafts' in state)) return;
  const drafts = state.drafts as Obj[];
  if (event.op === 'add') drafts.push(...clone(event.drafts as Obj[]));
  else if (event.op === 'update') {
    const index = drafts.findIndex((d) => d.id === event.draft.id);
    if (index < 0) throw new Error(`update of a draft the client does not have: ${JSON.stringify(event)}`);
    drafts[index] = clone(event.draft);
  } else if (event.op === 'remove') state.drafts = drafts.filter((d) => d.id !== event.draft_id);
  else throw new Error(`unknown drafts event ${JSON.stringify(event)}`);
}

export function applySavedSnippets(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('saved_snippets' in state)) return;
  const snippets = state.saved_snippets as Obj[];
  if (event.op === 'add') snippets.push(clone(event.saved_snippet));
  else if (event.op === 'update') {
    const index = snippets.findIndex((s) => s.id === event.saved_snippet.id);
    if (index >= 0) snippets[index] = clone(event.saved_snippet);
  } else if (event.op === 'remove') state.saved_snippets = snippets.filter((s) => s.id !== event.saved_snippet_id);
  else throw new Error(`unknown saved_snippets event ${JSON.stringify(event)}`);
}

export function applyNavigationView(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('navigation_views' in state)) return;
  const views = state.navigation_views as Obj[];
  if (event.op === 'add') views.push(clone(event.navigation_view));
  else if (event.op === 'update') Object.assign(views.find((v) => v.fragment === event.fragment) ?? {}, clone(event.data));
  else if (event.op === 'remove') state.navigation_views = views.filter((v) => v.fragment !== event.fragment);
  else throw new Error(`unknown navigation_view event ${JSON.stringify(event)}`);
}
