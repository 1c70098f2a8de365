// The `to` field of a send, read as Zulip reads it: JSON when it is JSON, the text itself when
// it is not. Text that cannot start a JSON value skips the parse; the answers must be those of
// a plain JSON.parse-or-text reading.
import { describe, expect, it } from 'vitest';
import { parseChannelTarget, parseDirectTargets } from '../../src/actions/messages/input.js';
import { ApiError } from '../../src/model/errors.js';

function failure(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return (err as Error).message;
  }
  throw new Error('no error');
}

describe('the channel of a send', () => {
  it('is a name, an id, or a JSON name or list of one', () => {
    expect(parseChannelTarget('general')).toBe('general');
    expect(parseChannelTarget('news and views')).toBe('news and views');
    expect(parseChannelTarget('2024 plans')).toBe('2024 plans');
    expect(parseChannelTarget('-dash')).toBe('-dash');
    expect(parseChannelTarget('"quoted name"')).toBe('quoted name');
    expect(parseChannelTarget('42')).toBe(42);
    expect(parseChannelTarget(' 42')).toBe(42);
    expect(parseChannelTarget('[7]')).toBe(7);
    expect(parseChannelTarget('  ["design"]')).toBe('design');
    expect(parseChannelTarget('{broken')).toBe('{broken');
    expect(parseChannelTarget('ünïcödé')).toBe('ünïcödé');
  });

  it('refuses JSON that names no channel', () => {
    expect(failure(() => parseChannelTarget('[1,2]'))).toBe('Cannot send to multiple channels');
    expect(failure(() => parseChannelTarget('true'))).toBe('Invalid data type for channel');
    expect(failure(() => parseChannelTarget('null'))).toBe('Invalid data type for channel');
    expect(failure(() => parseChannelTarget('1.5'))).toBe('Invalid data type for channel');
    expect(failure(() => parseChannelTarget('{"a":1}'))).toBe('Invalid data type for channel');
  });
});

describe('the recipients of a direct message', () => {
  it('are a JSON list of ids or emails, one id, or comma-separated emails', () => {
    expect(parseDirectTargets('a@x.test,b@x.test, a@x.test')).toEqual(['a@x.test', 'b@x.test']);
    expect(parseDirectTargets('a@x.test')).toEqual(['a@x.test']);
    expect(parseDirectTargets('["a@x.test","b@x.test"]')).toEqual(['a@x.test', 'b@x.test']);
    expect(parseDirectTargets('[3, 4, 3]')).toEqual([3, 4]);
    expect(parseDirectTargets(' 5')).toEqual([5]);
    expect(parseDirectTargets('"c@x.test"')).toEqual(['c@x.test']);
    expect(parseDirectTargets('[]')).toEqual([]);
  });

  it('refuses mixed or odd lists', () => {
    expect(failure(() => parseDirectTargets('[1, "a@x.test"]'))).toBe('Recipient lists may contain emails or user IDs, but not both.');
    expect(failure(() => parseDirectTargets('["a@x.test", 1]'))).toBe('Recipient lists may contain emails or user IDs, but not both.');
    expect(failure(() => parseDirectTargets('{"a":1}'))).toBe('Invalid data type for recipients');
    expect(failure(() => parseDirectTargets('true'))).toBe('Invalid data type for recipients');
  });
});
