// The search field: Zulip's operators (channel:, topic:, sender:, dm:, is:, has:, near:)
// and words, shown back as the current narrow.
import { useEffect, useRef, useState } from 'preact/hooks';
import { store, changed } from '../store';
import { parseSearch, searchText } from '../narrow';
import { openNarrow } from '../feed';

export const searchControl = { focus: () => {} };

export function SearchBar() {
  const narrow = store.feed?.narrow ?? [];
  const shown = searchText(narrow, (id) => store.channels.get(id)?.name, (id) => store.users.get(id)?.email);
  const [text, setText] = useState(shown);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setText(shown), [store.feed?.generation]);
  searchControl.focus = () => input.current?.focus();

  const submit = (e: Event) => {
    e.preventDefault();
    const terms = parseSearch(text, {
      channelId: (name) => [...store.channels.values()].find((c) => c.name.toLowerCase() === name.toLowerCase())?.stream_id,
      userId: (v) => [...store.users.values()].find((u) => u.email.toLowerCase() === v.toLowerCase() || u.full_name.toLowerCase() === v.toLowerCase())?.user_id,
    });
    void openNarrow(terms);
    input.current?.blur();
    changed();
  };
  return (
    <form role="search" class="search" onSubmit={submit}>
      <input
        ref={input}
        type="search"
        aria-label="Search"
        placeholder="Search (channel:, topic:, sender:, is:starred …)"
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => e.key === 'Escape' && (e.currentTarget.blur(), setText(shown))}
      />
    </form>
  );
}
