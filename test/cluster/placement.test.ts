import { describe, expect, it } from 'vitest';
import { Placement, murmur3 } from '../../cluster/placement.js';

const KEYS = Array.from({ length: 20_000 }, (_, i) => `realm-${i}-${(i * 7919) % 1000}`);
const workers = (n: number) => Array.from({ length: n }, (_, i) => `host-${i}-${1000 + i}-abc${i}`);

function owners(p: Placement): Map<string, string> {
  return new Map(KEYS.map((k) => [k, p.owner(k)!]));
}

describe('rendezvous placement', () => {
  it('is the same in every process for the same members, whatever their order', () => {
    const a = new Placement(workers(5));
    const b = new Placement([...workers(5)].reverse());
    for (const k of KEYS.slice(0, 2000)) expect(a.owner(k)).toBe(b.owner(k));
    expect(new Placement([]).owner('x')).toBeNull();
    expect(murmur3('hello', 0)).toBe(murmur3('hello', 0));
    expect(murmur3('hello', 1)).not.toBe(murmur3('hello', 0));
  });

  it('spreads realms evenly', () => {
    const counts = new Map<string, number>();
    for (const owner of owners(new Placement(workers(5))).values()) counts.set(owner, (counts.get(owner) ?? 0) + 1);
    expect(counts.size).toBe(5);
    for (const n of counts.values()) expect(Math.abs(n - KEYS.length / 5)).toBeLessThan(KEYS.length / 5 * 0.1);
  });

  it('moves about 1/N of the realms when a worker joins, all of them to the new worker', () => {
    const before = owners(new Placement(workers(5)));
    const after = owners(new Placement(workers(6)));
    let moved = 0;
    for (const k of KEYS) {
      if (before.get(k) === after.get(k)) continue;
      moved++;
      expect(after.get(k)).toBe(workers(6)[5]);
    }
    expect(moved / KEYS.length).toBeGreaterThan(1 / 6 - 0.02);
    expect(moved / KEYS.length).toBeLessThan(1 / 6 + 0.02);
  });

  it('moves only the realms of a worker that leaves', () => {
    const all = workers(5);
    const before = owners(new Placement(all));
    const gone = all[2]!;
    const after = owners(new Placement(all.filter((w) => w !== gone)));
    let moved = 0;
    for (const k of KEYS) {
      if (before.get(k) === gone) {
        moved++;
        expect(after.get(k)).not.toBe(gone);
      } else {
        expect(after.get(k)).toBe(before.get(k));
      }
    }
    expect(moved / KEYS.length).toBeGreaterThan(1 / 5 - 0.02);
    expect(moved / KEYS.length).toBeLessThan(1 / 5 + 0.02);
  });
});
