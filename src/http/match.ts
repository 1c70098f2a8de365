// Route patterns like `/users/{user_id}/reactivate`: compiled once, matched by segments.
// When several patterns match a path, the one with literal segments earliest wins
// (`/users/me` before `/users/{user_id}`). A last segment `{name+}` takes the rest of the
// path, slashes included (`/navigation_views/{fragment+}` matches `/navigation_views/narrow/is/starred`).

export interface CompiledPattern {
  /** The pattern with parameter names erased: routes that differ only by names share it. */
  shape: string;
  segments: { literal?: string; param?: string; rest?: boolean }[];
}

export function compilePattern(pattern: string): CompiledPattern {
  const parts = pattern.split('/').filter(Boolean);
  const segments = parts.map((s, i) => {
    if (!(s.startsWith('{') && s.endsWith('}'))) return { literal: s };
    const name = s.slice(1, -1);
    if (name.endsWith('+')) {
      if (i !== parts.length - 1) throw new Error(`{${name}} must be the last segment of ${pattern}`);
      return { param: name.slice(0, -1), rest: true };
    }
    return { param: name };
  });
  return { shape: '/' + segments.map((s) => (s.rest ? '{+}' : s.param ? '{}' : s.literal)).join('/'), segments };
}

export function matchPattern(p: CompiledPattern, parts: string[]): Record<string, string> | null {
  const last = p.segments[p.segments.length - 1];
  const rest = last?.rest === true;
  if (rest ? parts.length < p.segments.length : p.segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.segments.length; i++) {
    const seg = p.segments[i]!;
    const part = seg.rest ? parts.slice(i).join('/') : parts[i]!;
    if (seg.literal !== undefined) {
      if (seg.literal !== part) return null;
    } else {
      if (part === '') return null;
      try {
        params[seg.param!] = seg.rest ? parts.slice(i).map(decodeURIComponent).join('/') : decodeURIComponent(part);
      } catch {
        return null;
      }
    }
  }
  return params;
}

/** Specificity for ordering: literal segments earlier make a larger key. */
export function specificity(p: CompiledPattern): string {
  return p.segments.map((s) => (s.literal !== undefined ? '1' : '0')).join('');
}

export function splitPath(path: string): string[] {
  return path.split('/').filter((s, i, all) => s !== '' || (i > 0 && i < all.length - 1));
}
