// The `content_html_diff` of an edit-history entry: the new rendered HTML with the words the
// edit added wrapped in `highlight_text_inserted` spans and the words it removed put back in
// `highlight_text_deleted` spans (the classes Zulip's highlight_html_differences uses). Tags
// are kept as the new HTML has them; only text is compared, word by word.

/** Tags, runs of whitespace and words, in order. */
function tokenize(html: string): string[] {
  return html.match(/<[^>]*>|\s+|[^<\s]+/g) ?? [];
}

const isTag = (t: string) => t.startsWith('<');

/** Above this many comparisons the diff gives up on precision: everything old is deleted, everything new inserted. */
const MAX_CELLS = 4_000_000;

export function htmlDiff(before: string, after: string): string {
  const a = tokenize(before).filter((t) => !isTag(t));
  const b = tokenize(after);
  const bText = b.map((t, i) => [t, i] as const).filter(([t]) => !isTag(t));
  const n = a.length;
  const m = bText.length;
  const keep = new Array<boolean>(m).fill(false);
  const deletedBefore = new Map<number, string[]>();
  const noteDeleted = (at: number, word: string) => {
    let list = deletedBefore.get(at);
    if (!list) deletedBefore.set(at, (list = []));
    list.push(word);
  };
  if (n * m <= MAX_CELLS) {
    // Longest common subsequence of the text tokens, then a walk that marks kept and removed words.
    const table: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i]![j] = a[i] === bText[j]![0] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n && j < m) {
      if (a[i] === bText[j]![0]) {
        keep[j] = true;
        i++;
        j++;
      } else if (table[i + 1]![j]! >= table[i]![j + 1]!) {
        noteDeleted(j, a[i++]!);
      } else {
        j++;
      }
    }
    while (i < n) noteDeleted(m, a[i++]!);
  } else {
    for (const word of a) noteDeleted(0, word);
  }
  // Removed words in one span; the white space around them stays outside it.
  const deletedSpan = (words: string[]) => {
    const text = words.join('');
    const [, lead, core, trail] = /^(\s*)([\s\S]*?)(\s*)$/.exec(text)!;
    return core ? `${lead}<span class="highlight_text_deleted">${core}</span>${trail}` : '';
  };
  const trailing = deletedBefore.get(m);
  let out = '';
  let textIndex = 0;
  for (const token of b) {
    if (isTag(token)) {
      out += token;
      continue;
    }
    const removed = deletedBefore.get(textIndex);
    if (removed) out += deletedSpan(removed);
    out += keep[textIndex] || !token.trim() ? token : `<span class="highlight_text_inserted">${token}</span>`;
    textIndex++;
    // Words removed after the last remaining one follow it, inside the same element.
    if (textIndex === m && trailing) out += deletedSpan(trailing);
  }
  if (m === 0 && trailing) out += deletedSpan(trailing);
  return out;
}
