// The login form: email and password, as Zulip's web app asks for them.
import { useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { startSession } from '../events';
import { store, changed } from '../store';

export function Login() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(store.fatal);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api('POST', '/login', { username: email, password });
      store.fatal = null;
      await startSession();
    } catch (err) {
      setError(errorText(err));
      store.phase = 'login';
      changed();
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="login-box" onSubmit={submit}>
        <h1>Log in</h1>
        <label>
          Email
          <input type="email" name="username" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
        </label>
        <label>
          Password
          <input type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          Log in
        </button>
      </form>
    </main>
  );
}
