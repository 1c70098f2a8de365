// Route patterns like `/users/{user_id}/reactivate`: compiled once, matched by segments.
// When several patterns match a path, the one with literal segments earliest wins
// (`/users/me` before `/users/{user_id}`).

export interface CompiledPattern {
  /** The pattern with parameter names erased: routes that differ only by names share it. */
  shape: string;
  segments: { literal?: string; param?: string }[];
}

export function compilePattern(pattern: string): CompiledPattern {
  const parts = pattern.split('/').filter(Boolean);
  const segments = parts.map((s) => (s.startsWith('{') && s.endsWith('}') ? { param: s.slice(1, -1) } : { literal: s }));
  return { shape: '/' + segments.map((s) => (s.param ? '{}' : s.literal)).join('/'), segments };
}

export function matchPattern(p: CompiledPattern, parts: string[]): Record<string, string> | null {
  if (p.segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = p.segments[i]!;
    const part = parts[i]!;
    if (seg.literal !== undefined) {
      if (seg.literal !== part) return null;
    } else {
      if (part === '') return null;
      try {
        params[seg.param!] = decodeURIComponent(part);
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
