// The page of an invitation link (`/join/<key>/`): the invited person gives their address, a
// name and a password; POST /register_with_invite makes the account, and they are logged in
// as the login form does.
import { useEffect, useState } from 'preact/hooks';
import { api, csrfToken, errorText } from '../api';
import { startSession } from '../events';
import { store, changed } from '../store';

/** The server's shortest accepted password (its PASSWORD_MIN_LENGTH). */
const PASSWORD_MIN_LENGTH = 6;

export function Join({ inviteKey }: { inviteKey: string }) {
  const [realmName, setRealmName] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [fullName, setFullName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The browser has a session already: it may be someone else's.
  const [signedIn] = useState(() => csrfToken() !== '');

  useEffect(() => {
    api<{ realm_name?: unknown }>('GET', '/server_settings').then(
      (r) => setRealmName(typeof r.realm_name === 'string' && r.realm_name ? r.realm_name : null),
      () => undefined, // the plain title stays
    );
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/register_with_invite', { key: inviteKey, email, password, full_name: fullName });
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
      return;
    }
    try {
      await api('POST', '/login', { username: email, password });
      store.fatal = null;
      store.joinKey = null;
      history.replaceState(null, '', '/');
      await startSession();
    } catch (err) {
      // The account exists and the key is used: what is left is the login form.
      store.joinKey = null;
      history.replaceState(null, '', '/');
      store.fatal = errorText(err);
      store.phase = 'login';
      changed();
    }
  };

  return (
    <main class="login">
      <form class="login-box" onSubmit={submit}>
        <h1>{realmName ? `Join ${realmName}` : 'Join the organization'}</h1>
        {signedIn && <p class="hint">This browser is logged in to an account already. Joining logs it in to the new account instead.</p>}
        <label>
          Email
          <input type="email" name="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Full name
          <input type="text" name="full_name" autocomplete="name" required value={fullName} onInput={(e) => setFullName(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autocomplete="new-password"
            required
            aria-describedby="join-password-hint"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <p id="join-password-hint" class="hint">
          The password needs at least {PASSWORD_MIN_LENGTH} characters.
        </p>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Join
        </button>
      </form>
    </main>
  );
}
