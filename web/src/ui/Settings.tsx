// Personal settings: name, password, notifications and theme (PATCH /settings).
import { useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { store, me, notify } from '../store';
import { Dialog } from './Dialog';

const NOTIFICATION_SETTINGS: [string, string][] = [
  ['enable_desktop_notifications', 'Desktop notifications for direct messages and mentions'],
  ['enable_sounds', 'Sounds for direct messages and mentions'],
  ['enable_offline_email_notifications', 'Email me about direct messages and mentions when I am away'],
  ['enable_offline_push_notifications', 'Mobile notifications when I am away'],
  ['wildcard_mentions_notify', 'Notify me of @all and @topic mentions'],
  ['enable_stream_desktop_notifications', 'Desktop notifications for every channel message'],
  ['enable_digest_emails', 'Digest emails when I am away'],
];

async function save(params: Record<string, unknown>, done: string): Promise<boolean> {
  try {
    await api('PATCH', '/settings', params);
    notify(done);
    return true;
  } catch (err) {
    notify(errorText(err));
    return false;
  }
}

export function Settings() {
  const [name, setName] = useState(me()?.full_name ?? '');
  const [oldPassword, setOld] = useState('');
  const [newPassword, setNew] = useState('');
  const s = store.settings;
  return (
    <Dialog title="Settings">
      <section>
        <h3>Profile</h3>
        <form onSubmit={(e) => (e.preventDefault(), void save({ full_name: name }, 'Name saved.'))}>
          <label>
            Full name
            <input value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit">Save name</button>
        </form>
      </section>
      <section>
        <h3>Password</h3>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            if (await save({ old_password: oldPassword, new_password: newPassword }, 'Password changed.')) {
              setOld('');
              setNew('');
            }
          }}
        >
          <label>
            Current password
            <input type="password" autocomplete="current-password" value={oldPassword} onInput={(e) => setOld(e.currentTarget.value)} />
          </label>
          <label>
            New password
            <input type="password" autocomplete="new-password" value={newPassword} onInput={(e) => setNew(e.currentTarget.value)} />
          </label>
          <button type="submit">Change password</button>
        </form>
      </section>
      <section>
        <h3>Notifications</h3>
        {NOTIFICATION_SETTINGS.map(([key, label]) => (
          <label key={key} class="check">
            <input type="checkbox" checked={s[key] === true} onChange={(e) => void save({ [key]: e.currentTarget.checked }, 'Saved.')} />
            {label}
          </label>
        ))}
      </section>
      <section>
        <h3>Display</h3>
        <label>
          Theme
          <select value={String(s.color_scheme ?? 1)} onChange={(e) => void save({ color_scheme: Number(e.currentTarget.value) }, 'Theme saved.')}>
            <option value="1">Automatic</option>
            <option value="3">Light</option>
            <option value="2">Dark</option>
          </select>
        </label>
        <label class="check">
          <input type="checkbox" checked={s.enter_sends === true} onChange={(e) => void save({ enter_sends: e.currentTarget.checked }, 'Saved.')} />
          Enter sends a message (otherwise Ctrl+Enter)
        </label>
      </section>
    </Dialog>
  );
}
