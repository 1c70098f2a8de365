// The page: the login form (or an invitation link's join form), or the header (search,
// menus), the sidebar of channels and conversations, the feed with its compose box, and the
// user list.
import { useEffect } from 'preact/hooks';
import { useStore } from '../hooks';
import { store, changed } from '../store';
import { Login } from './Login';
import { Join } from './Join';
import { Sidebar } from './Sidebar';
import { FeedView } from './Feed';
import { Compose } from './Compose';
import { UserList } from './UserList';
import { SearchBar } from './SearchBar';
import { Settings } from './Settings';
import { Admin } from './Admin';
import { Help } from './Help';
import { DraftsView } from './Drafts';
import { openNarrow } from '../feed';
import { parseHash } from '../narrow';
import { api } from '../api';
import { stopSession } from '../events';
import { installShortcuts } from '../shortcuts';
import { startPresence } from '../presence';

function applyTheme(): void {
  const scheme = store.settings.color_scheme;
  document.documentElement.dataset.theme = scheme === 2 ? 'dark' : scheme === 3 ? 'light' : 'auto';
}

function openFromHash(): void {
  if (store.phase !== 'ready') return;
  void openNarrow(parseHash(location.hash) ?? [], false);
}

async function logout(): Promise<void> {
  try {
    await api('POST', '/logout');
  } finally {
    stopSession();
    store.phase = 'login';
    store.feed = null;
    changed();
  }
}

function Header() {
  return (
    <header class="top">
      <button type="button" class="only-narrow" aria-label="Channels" aria-expanded={store.leftOpen} onClick={() => ((store.leftOpen = !store.leftOpen), (store.rightOpen = false), changed())}>
        ☰
      </button>
      <a class="brand" href="#">
        {String(store.realm.realm_name ?? 'Chat')}
      </a>
      <SearchBar />
      <button type="button" class="only-narrow" aria-label="Users" aria-expanded={store.rightOpen} onClick={() => ((store.rightOpen = !store.rightOpen), (store.leftOpen = false), changed())}>
        👥
      </button>
      <nav class="menu" aria-label="Account">
        <button type="button" onClick={() => ((store.overlay = 'settings'), changed())}>
          Settings
        </button>
        {store.isAdmin && (
          <button type="button" onClick={() => ((store.overlay = 'admin'), changed())}>
            Organization
          </button>
        )}
        <button type="button" onClick={() => ((store.overlay = 'help'), changed())} aria-label="Keyboard shortcuts">
          ?
        </button>
        <button type="button" onClick={() => void logout()}>
          Log out
        </button>
      </nav>
    </header>
  );
}

export function App() {
  useStore();
  const ready = store.phase === 'ready';
  useEffect(() => {
    if (!ready) return;
    const onPop = () => openFromHash();
    window.addEventListener('hashchange', onPop);
    openFromHash();
    const removeKeys = installShortcuts();
    const stopPresence = startPresence();
    return () => {
      window.removeEventListener('hashchange', onPop);
      removeKeys();
      stopPresence();
    };
  }, [ready]);
  useEffect(applyTheme);

  if (store.phase === 'loading') return <p class="loading">Loading…</p>;
  if (store.phase === 'join' && store.joinKey) return <Join inviteKey={store.joinKey} />;
  if (!ready) return <Login />;
  return (
    <div class={`app ${store.leftOpen ? 'left-open' : ''} ${store.rightOpen ? 'right-open' : ''}`}>
      <Header />
      <Sidebar />
      <main class="center" aria-label="Conversation">
        <FeedView />
        <Compose />
      </main>
      <UserList />
      {store.overlay === 'settings' && <Settings />}
      {store.overlay === 'admin' && <Admin />}
      {store.overlay === 'help' && <Help />}
      {store.overlay === 'drafts' && <DraftsView />}
      <div class="notice" role="status" aria-live="polite">
        {store.notice}
      </div>
    </div>
  );
}
