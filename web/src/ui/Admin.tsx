// Organization administration for administrators: users (roles, deactivation), invitation
// links, channels (create, subscribe, archive).
import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../api';
import { store, notify, userName, byName } from '../store';
import { ROLE_NAMES, Role } from '../types';
import { Dialog } from './Dialog';

async function run(work: () => Promise<unknown>, done?: string): Promise<boolean> {
  try {
    await work();
    if (done) notify(done);
    return true;
  } catch (err) {
    notify(errorText(err));
    return false;
  }
}

function Users() {
  const [q, setQ] = useState('');
  const needle = q.trim().toLowerCase();
  const list = [...store.users.values()]
    .filter((u) => !u.is_bot && (!needle || u.full_name.toLowerCase().includes(needle) || u.email.toLowerCase().includes(needle)))
    .sort((a, b) => byName(a.full_name, b.full_name));
  const isOwner = (store.users.get(store.me)?.role ?? Role.MEMBER) === Role.OWNER;
  return (
    <section>
      <input type="search" aria-label="Filter people" placeholder="Filter people" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
      <table class="admin-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Account</th>
          </tr>
        </thead>
        <tbody>
          {list.slice(0, 100).map((u) => (
            <tr key={u.user_id}>
              <td>{u.full_name}</td>
              <td>{u.email}</td>
              <td>
                <select aria-label={`Role of ${u.full_name}`} value={String(u.role)} disabled={!u.is_active} onChange={(e) => void run(() => api('PATCH', `/users/${u.user_id}`, { role: Number(e.currentTarget.value) }), 'Role changed.')}>
                  {Object.entries(ROLE_NAMES)
                    .filter(([r]) => isOwner || Number(r) !== Role.OWNER || u.role === Role.OWNER)
                    .map(([r, name]) => (
                      <option key={r} value={r}>
                        {name}
                      </option>
                    ))}
                </select>
              </td>
              <td>
                {u.is_active ? (
                  <button type="button" disabled={u.user_id === store.me} onClick={() => confirm(`Deactivate ${u.full_name}?`) && void run(() => api('DELETE', `/users/${u.user_id}`), 'Deactivated.')}>
                    Deactivate
                  </button>
                ) : (
                  <button type="button" onClick={() => void run(() => api('POST', `/users/${u.user_id}/reactivate`), 'Reactivated.')}>
                    Reactivate
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.length > 100 && <p>{list.length - 100} more: filter to find them.</p>}
    </section>
  );
}

interface Invite {
  id: number;
  is_multiuse: boolean;
  invited_as: number;
  expiry_date: number | null;
  link_url?: string;
  email?: string;
  invited_by_user_id: number;
}

function Invitations() {
  const [invites, setInvites] = useState<Invite[]>([]);
  const [role, setRole] = useState(String(Role.MEMBER));
  const [minutes, setMinutes] = useState('10080');
  const [link, setLink] = useState<string | null>(null);
  const reload = () => void api<{ invites: Invite[] }>('GET', '/invites').then((r) => setInvites(r.invites), (err) => notify(errorText(err)));
  useEffect(reload, []);
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const r = await api<{ invite_link: string }>('POST', '/invites/multiuse', {
        invite_as: Number(role),
        invite_expires_in_minutes: minutes === 'never' ? null : Number(minutes),
        stream_ids: [],
      });
      setLink(r.invite_link);
      reload();
    } catch (err) {
      notify(errorText(err));
    }
  };
  return (
    <section>
      <form onSubmit={create} class="row">
        <label>
          Invite as
          <select value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            {[Role.MEMBER, Role.MODERATOR, Role.ADMINISTRATOR, Role.GUEST].map((r) => (
              <option key={r} value={String(r)}>
                {ROLE_NAMES[r]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Expires
          <select value={minutes} onChange={(e) => setMinutes(e.currentTarget.value)}>
            <option value="1440">in a day</option>
            <option value="10080">in a week</option>
            <option value="43200">in 30 days</option>
            <option value="never">never</option>
          </select>
        </label>
        <button type="submit">Create invitation link</button>
      </form>
      {link && (
        <p>
          Invitation link: <output class="link">{link}</output>
        </p>
      )}
      <ul class="invites">
        {invites.map((i) => (
          <li key={`${i.is_multiuse}-${i.id}`}>
            {i.is_multiuse ? 'Link' : i.email} · {ROLE_NAMES[i.invited_as] ?? i.invited_as} · by {userName(i.invited_by_user_id)} ·{' '}
            {i.expiry_date ? `expires ${new Date(i.expiry_date * 1000).toLocaleDateString()}` : 'never expires'}{' '}
            {i.is_multiuse && (
              <button type="button" onClick={() => void run(() => api('DELETE', `/invites/multiuse/${i.id}`), 'Revoked.').then(reload)}>
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function Channels() {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [priv, setPriv] = useState(false);
  const list = [...store.channels.values()].filter((c) => !c.is_archived).sort((a, b) => byName(a.name, b.name));
  const create = async (e: Event) => {
    e.preventDefault();
    if (await run(() => api('POST', '/users/me/subscriptions', { subscriptions: [{ name, description }], invite_only: priv }), `Channel ${name} created.`)) {
      setName('');
      setDescription('');
    }
  };
  return (
    <section>
      <form onSubmit={create} class="row">
        <label>
          Channel name
          <input required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Description
          <input value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={priv} onChange={(e) => setPriv(e.currentTarget.checked)} />
          Private
        </label>
        <button type="submit">Create channel</button>
      </form>
      <table class="admin-table">
        <thead>
          <tr>
            <th scope="col">Channel</th>
            <th scope="col">Description</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {list.slice(0, 200).map((c) => {
            const subscribed = store.subs.has(c.stream_id);
            return (
              <tr key={c.stream_id}>
                <td>
                  {c.invite_only ? '🔒 ' : '#'}
                  {c.name}
                </td>
                <td>{c.description}</td>
                <td>
                  <button type="button" onClick={() => void run(() => api(subscribed ? 'DELETE' : 'POST', '/users/me/subscriptions', { subscriptions: subscribed ? [c.name] : [{ name: c.name }] }))}>
                    {subscribed ? `Unsubscribe from ${c.name}` : `Subscribe to ${c.name}`}
                  </button>{' '}
                  <button type="button" onClick={() => confirm(`Archive #${c.name}?`) && void run(() => api('DELETE', `/streams/${c.stream_id}`), 'Archived.')}>
                    Archive {c.name}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

export function Admin() {
  const [tab, setTab] = useState<'users' | 'invites' | 'channels'>('users');
  return (
    <Dialog title="Organization">
      <div class="tabs" role="group" aria-label="Sections">
        {(
          [
            ['users', 'Users'],
            ['invites', 'Invitations'],
            ['channels', 'Channels'],
          ] as const
        ).map(([key, label]) => (
          <button key={key} type="button" aria-pressed={tab === key} onClick={() => setTab(key)}>
            {label}
          </button>
        ))}
      </div>
      {tab === 'users' && <Users />}
      {tab === 'invites' && <Invitations />}
      {tab === 'channels' && <Channels />}
    </Dialog>
  );
}
