// Form-encoded parameters are read as URLSearchParams reads them, with or without anything
// to decode (the split-in-place path for text without `%` or `+`).
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../../src/http/body.js';

const viaUrlSearchParams = (text: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text)) out[k] = v;
  return out;
};

describe('parseQuery', () => {
  const cases = [
    '',
    'queue_id=s1-6f1c2a&last_event_id=41',
    'queue_id=s1-6f1c2a&last_event_id=41&dont_block=true',
    'a=1&&b=2&',
    '&a=1',
    'a',
    'a&b=',
    '=x',
    '=',
    'a=1&a=2',
    'a=b=c',
    '?a=1&b=2',
    '??a=1',
    'narrow=%5B%7B%22operator%22%3A%22channel%22%7D%5D&anchor=newest',
    'content=hello+world&to=general',
    'bad=%zz&ok=%41',
    'ünï=cödé&x=😀',
    'a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8',
  ];
  for (const text of cases) {
    it(`reads ${JSON.stringify(text)} as URLSearchParams does`, () => {
      expect(parseQuery(text)).toEqual(viaUrlSearchParams(text));
    });
  }

  it('adds to the parameters it is given, a later value replacing an earlier one', () => {
    expect(parseQuery('b=2&a=3', { a: '1' })).toEqual({ a: '3', b: '2' });
  });
});
