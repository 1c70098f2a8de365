// Presence: this client reports itself active (or idle when the page is hidden) once a
// minute, as Zulip's web app does, and gets back what changed since its last report.
import { api } from './api';
import { store, changed } from './store';
import type { Presence } from './types';

export function startPresence(): () => void {
  let lastUpdateId = Number(store.realm.presence_last_update_id ?? -1);
  let stopped = false;
  const report = async () => {
    if (stopped) return;
    try {
      const r = await api<{ presences?: Record<string, Presence>; presence_last_update_id?: number }>('POST', '/users/me/presence', {
        status: document.visibilityState === 'visible' ? 'active' : 'idle',
        slim_presence: true,
        last_update_id: lastUpdateId,
        new_user_input: document.hasFocus(),
      });
      for (const [id, p] of Object.entries(r.presences ?? {})) store.presence.set(Number(id), p);
      store.peopleVersion++;
      if (r.presence_last_update_id !== undefined) lastUpdateId = r.presence_last_update_id;
      changed();
    } catch {
      // The next report tries again.
    }
  };
  const seconds = Number(store.realm.server_presence_ping_interval_seconds ?? 60);
  void report();
  const timer = setInterval(() => void report(), seconds * 1000);
  const onVisible = () => void report();
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    stopped = true;
    clearInterval(timer);
    document.removeEventListener('visibilitychange', onVisible);
  };
}

export type PresenceState = 'active' | 'idle' | 'offline';

export function presenceOf(userId: number, now = Date.now() / 1000): PresenceState {
  const p = store.presence.get(userId);
  if (!p) return 'offline';
  const offlineAfter = Number(store.realm.server_presence_offline_threshold_seconds ?? 140);
  if (now - p.active_timestamp < offlineAfter) return 'active';
  if (now - p.idle_timestamp < offlineAfter) return 'idle';
  return 'offline';
}
