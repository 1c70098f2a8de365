// Entry: shows the login form, or the app when the browser still has a session; at an
// invitation link (`/join/<key>/`), the join form whether or not there is a session.
import { render } from 'preact';
import './styles.css';
import { App } from './ui/App';
import { store, changed } from './store';
import { csrfToken, whenLoggedOut, ApiError } from './api';
import { startSession, stopSession } from './events';

whenLoggedOut(() => {
  stopSession();
  store.phase = 'login';
  changed();
});

/** The key of an invitation link's address, or null. */
function joinKey(): string | null {
  const raw = /^\/join\/([^/]+)\/?$/.exec(location.pathname)?.[1];
  if (!raw) return null;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

async function boot(): Promise<void> {
  const key = joinKey();
  if (key) {
    store.joinKey = key;
    store.phase = 'join';
    changed();
    return;
  }
  if (!csrfToken()) {
    store.phase = 'login';
    changed();
    return;
  }
  try {
    await startSession();
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) store.fatal = err instanceof Error ? err.message : String(err);
    store.phase = 'login';
    changed();
  }
}

render(<App />, document.getElementById('app')!);
void boot();
