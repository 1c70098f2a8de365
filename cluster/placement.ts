// Which worker owns a realm: rendezvous (highest-random-weight) hashing of the realm's
// subdomain over the live workers. Every process that sees the same members computes the
// same owner; adding or removing one of N workers moves only the realms that it wins or held
// (about 1/N of them), and no table has to be agreed on.

/** MurmurHash3 (x86, 32-bit) of a string's UTF-16 code units, with a seed. */
export function murmur3(key: string, seed: number): number {
  let h = seed >>> 0;
  const n = key.length;
  let i = 0;
  // Two UTF-16 units per 32-bit block.
  for (; i + 1 < n; i += 2) {
    let k = (key.charCodeAt(i) & 0xffff) | ((key.charCodeAt(i + 1) & 0xffff) << 16);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  if (i < n) {
    let k = key.charCodeAt(i) & 0xffff;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
  }
  h ^= n * 2;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const CACHE_LIMIT = 100_000;

export class Placement {
  private readonly seeds: { node: string; seed: number }[];
  private readonly cache = new Map<string, string>();

  constructor(nodes: Iterable<string>) {
    this.seeds = [...new Set(nodes)].sort().map((node) => ({ node, seed: murmur3(node, 0x9747b28c) }));
  }

  get nodes(): string[] {
    return this.seeds.map((s) => s.node);
  }

  get size(): number {
    return this.seeds.length;
  }

  /** The node with the highest weight for this key; null when there are no nodes. */
  owner(key: string): string | null {
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let best: string | null = null;
    let bestWeight = -1;
    for (const { node, seed } of this.seeds) {
      const w = murmur3(key, seed);
      // Ties (rare) go to the smaller id, so every process breaks them the same way.
      if (w > bestWeight) {
        best = node;
        bestWeight = w;
      }
    }
    if (best !== null) {
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, best);
    }
    return best;
  }
}
