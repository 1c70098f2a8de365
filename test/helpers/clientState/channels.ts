// How the reference client applies `stream` and `subscription` events to its channel lists.
import { clone, subscriberKey, type ClientState, type Obj } from './state.js';

const byName = (a: Obj, b: Obj) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export function applyStream(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  if (event.op === 'create') {
    for (const stream of event.streams as Obj[]) {
      if ('subscriptions' in state) {
        const data = clone(stream);
        if (opts.includeSubscribers) data.subscribers = [];
        const former = cs.droppedSubscriptions.get(stream.stream_id);
        if (former) {
          // Back from a channel this user was subscribed to: its personal settings return.
          const personal = Object.fromEntries(Object.entries(former).filter(([k]) => !(k in stream) && k !== 'subscribers' && k !== 'partial_subscribers'));
          state.unsubscribed.push({ ...data, ...personal });
          cs.droppedSubscriptions.delete(stream.stream_id);
        } else {
          state.never_subscribed.push(data);
        }
        state.unsubscribed.sort(byName);
        state.never_subscribed.sort(byName);
      }
      if ('streams' in state) {
        state.streams.push(clone(stream));
        state.streams.sort(byName);
      }
    }
    return;
  }
  if (event.op === 'delete') {
    const gone = new Set((event.streams as Obj[]).map((s) => s.stream_id as number));
    for (const key of ['subscriptions', 'unsubscribed']) {
      for (const sub of (state[key] ?? []) as Obj[]) if (gone.has(sub.stream_id)) cs.droppedSubscriptions.set(sub.stream_id, sub);
    }
    for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
      if (key in state) state[key] = (state[key] as Obj[]).filter((s) => !gone.has(s.stream_id));
    }
    return;
  }
  // update: Zulip's reducer finds the channel by its (old) name.
  const name = String(event.name).toLowerCase();
  const update = (obj: Obj, onlyKnownProperty: boolean) => {
    if (String(obj.name).toLowerCase() !== name) return;
    if (onlyKnownProperty && !(event.property in obj)) return;
    obj[event.property] = clone(event.value);
    if (event.property === 'description') obj.rendered_description = event.rendered_description;
    if (event.history_public_to_subscribers !== undefined && event.history_public_to_subscribers !== null) {
      obj.history_public_to_subscribers = event.history_public_to_subscribers;
    }
    if (event.is_web_public !== undefined && event.is_web_public !== null) obj.is_web_public = event.is_web_public;
  };
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed']) for (const obj of (state[key] ?? []) as Obj[]) update(obj, false);
  for (const obj of (state.streams ?? []) as Obj[]) update(obj, true);
}

export function applySubscription(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  if (!('subscriptions' in state)) return;
  if (event.op === 'add') {
    const added = new Set((event.subscriptions as Obj[]).map((s) => s.stream_id as number));
    const existing = new Set((state.subscriptions as Obj[]).map((s) => s.stream_id as number));
    for (const sub of event.subscriptions as Obj[]) {
      if (existing.has(sub.stream_id)) continue;
      const copy = clone(sub);
      if (!opts.includeSubscribers) {
        delete copy.subscribers;
        delete copy.partial_subscribers;
      }
      state.subscriptions.push(copy);
    }
    state.unsubscribed = (state.unsubscribed as Obj[]).filter((s) => !added.has(s.stream_id));
    state.never_subscribed = (state.never_subscribed as Obj[]).filter((s) => !added.has(s.stream_id));
    return;
  }
  if (event.op === 'remove') {
    const removed = new Set((event.subscriptions as Obj[]).map((s) => s.stream_id as number));
    const subs = (state.subscriptions as Obj[]).filter((s) => removed.has(s.stream_id));
    if (opts.includeSubscribers) {
      for (const sub of subs) {
        const key = subscriberKey(sub);
        if (key) sub[key] = (sub[key] as number[]).filter((id) => id !== opts.userId);
      }
    }
    state.unsubscribed = [...state.unsubscribed, ...subs];
    state.subscriptions = (state.subscriptions as Obj[]).filter((s) => !removed.has(s.stream_id));
    return;
  }
  if (event.op === 'update') {
    for (const sub of state.subscriptions as Obj[]) if (sub.stream_id === event.stream_id) sub[event.property] = event.value;
    return;
  }
  // peer_add / peer_remove
  if (!opts.includeSubscribers) return;
  const streamIds = new Set(event.stream_ids as number[]);
  const userIds = event.user_ids as number[];
  for (const list of [state.subscriptions, state.unsubscribed, state.never_subscribed] as Obj[][]) {
    for (const sub of list) {
      if (!streamIds.has(sub.stream_id)) continue;
      const key = subscriberKey(sub);
      if (!key) continue;
      const set = new Set(sub[key] as number[]);
      for (const id of userIds) if (event.op === 'peer_add') set.add(id); else set.delete(id);
      sub[key] = [...set].sort((a, b) => a - b);
    }
  }
}

