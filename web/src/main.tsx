// Entry: shows the login form, or the app when the browser still has a session.
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

async function boot(): Promise<void> {
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
