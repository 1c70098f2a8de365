// Python's fnmatch (as on Linux: case-sensitive), for `only_events` / `exclude_events`
// patterns like `pull_request*`.

const cache = new Map<string, RegExp>();

function compile(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '[') {
      // As Python: a `]` right after `[` or `[!` belongs to the set; no closing `]` means a literal `[`.
      let end = i + 1;
      if (pattern[end] === '!') end++;
      if (pattern[end] === ']') end++;
      while (end < pattern.length && pattern[end] !== ']') end++;
      if (end >= pattern.length) {
        re += '\\[';
        continue;
      }
      let set = pattern.slice(i + 1, end);
      i = end;
      const negate = set.startsWith('!');
      if (negate) set = set.slice(1);
      const body = set.replace(/[\\\]^]/g, (m) => `\\${m}`);
      re += negate ? `[^${body}]` : `[${body}]`;
    } else re += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

export function fnmatch(name: string, pattern: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    re = compile(pattern);
    if (cache.size < 1000) cache.set(pattern, re);
  }
  return re.test(name);
}

/** Zulip's filter: kept unless `only_events` matches nothing or `exclude_events` matches. */
export function eventPasses(eventType: string, only: string[] | undefined, exclude: string[] | undefined): boolean {
  if (only !== undefined && !only.some((p) => fnmatch(eventType, p))) return false;
  if (exclude !== undefined && exclude.some((p) => fnmatch(eventType, p))) return false;
  return true;
}
