// The user list: people by presence (active, idle, offline) then name, filtered by name. A
// large organization shows the first hundred that match; the filter finds the rest.
import { useMemo, useState } from 'preact/hooks';
import { store, byName } from '../store';
import { presenceOf, type PresenceState } from '../presence';
import { narrowHash } from '../narrow';

const RANK: Record<PresenceState, number> = { active: 0, idle: 1, offline: 2 };
const SHOWN = 100;

export function UserList() {
  const [filter, setFilter] = useState('');
  // Sorting ten thousand people is worth doing only when they or their presence change.
  const people = useMemo(() => {
    const q = filter.trim().toLowerCase();
    const now = Date.now() / 1000;
    const out = [];
    for (const u of store.users.values()) {
      if (!u.is_active || u.is_bot) continue;
      if (q && !u.full_name.toLowerCase().includes(q) && !u.email.toLowerCase().includes(q)) continue;
      out.push({ u, state: presenceOf(u.user_id, now) });
    }
    return out.sort((a, b) => RANK[a.state] - RANK[b.state] || byName(a.u.full_name, b.u.full_name));
  }, [filter, store.peopleVersion]);
  return (
    <aside class="right" aria-label="Users">
      <input type="search" aria-label="Filter users" placeholder="Filter users" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      <ul class="people">
        {people.slice(0, SHOWN).map(({ u, state }) => (
          <li key={u.user_id}>
            <span class={`dot ${state}`} role="img" aria-label={state} />
            <a href={narrowHash([{ operator: 'dm', operand: [u.user_id] }])}>{u.full_name}</a>
          </li>
        ))}
      </ul>
      {people.length > SHOWN && <p class="more">{people.length - SHOWN} more: filter to find them.</p>}
    </aside>
  );
}
