// A message's recipients with their flag bits (src/actions/messages/recipientBits.ts): the
// channel's list is shared and left as it is; only bits that differ are kept per user.
import { describe, expect, it } from 'vitest';
import { RecipientBits } from '../../src/actions/messages/recipientBits.js';

const entries = (r: RecipientBits) => {
  const out: Array<[number, number]> = [];
  r.forEach((bits, id) => out.push([id, bits]));
  return out;
};

describe('RecipientBits', () => {
  it('visits the sender first, then the others in order, each once', () => {
    const ids = [4, 2, 9];
    const r = new RecipientBits(ids, new Set(ids), 2);
    expect(entries(r)).toEqual([[2, 0], [4, 0], [9, 0]]);
    expect(r.size).toBe(3);
    const outsider = new RecipientBits(ids, new Set(ids), 7);
    expect(entries(outsider)).toEqual([[7, 0], [4, 0], [2, 0], [9, 0]]);
    expect(outsider.size).toBe(4);
    expect(outsider.has(7)).toBe(true);
  });

  it('adds bits to recipients only, and common bits to all', () => {
    const ids = [1, 2, 3];
    const r = new RecipientBits(ids, new Set(ids), 1);
    r.add(2, 8);
    r.add(2, 2);
    r.add(5, 8); // not a recipient
    expect(r.get(5)).toBeUndefined();
    expect(r.has(5)).toBe(false);
    expect([...r.ownBits()]).toEqual([[2, 10]]);
    r.addToAll(16);
    expect(entries(r)).toEqual([[1, 16], [2, 26], [3, 16]]);
    expect(r.get(3)).toBe(16);
    // The shared list is never changed.
    expect(ids).toEqual([1, 2, 3]);
  });
});
