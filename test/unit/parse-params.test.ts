// Parameters parsed against an endpoint's spec: what an absent parameter gives is asked of its
// schema once per spec, and a default list or dict is still a new one for every request.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { p, parseParams } from '../../src/http/params.js';
import { ApiError } from '../../src/model/errors.js';

const spec = {
  queue_id: p.string(),
  last_event_id: p.int().optional(),
  dont_block: p.bool().default(false),
  narrow: p.json(z.array(z.string())).default([]),
  client_capabilities: p.json(z.record(z.string(), z.boolean())).default({}),
  lifespan: p.int().default(600),
};

function failure(run: () => unknown): { code: string; msg: string; var_name?: unknown } {
  try {
    run();
  } catch (err) {
    if (err instanceof ApiError) return { code: err.code, msg: err.message, var_name: err.extra?.var_name };
    throw err;
  }
  throw new Error('no failure');
}

describe('parseParams', () => {
  it('gives defaults and undefined for absent parameters, and lists the unknown ones', () => {
    const { args, ignored } = parseParams(spec, { queue_id: 'q1', last_event_id: '41', color: 'red' });
    expect(args).toEqual({ queue_id: 'q1', last_event_id: 41, dont_block: false, narrow: [], client_capabilities: {}, lifespan: 600 });
    expect('last_event_id' in parseParams(spec, { queue_id: 'q1' }).args).toBe(true);
    expect(parseParams(spec, { queue_id: 'q1' }).args.last_event_id).toBeUndefined();
    expect(ignored).toEqual(['color']);
  });

  it('hands out a new default list and dict for every request', () => {
    const first = parseParams(spec, { queue_id: 'q1' }).args;
    first.narrow.push('changed');
    first.client_capabilities.changed = true;
    const second = parseParams(spec, { queue_id: 'q2' }).args;
    expect(second.narrow).toEqual([]);
    expect(second.client_capabilities).toEqual({});
    expect(second.narrow).not.toBe(first.narrow);
  });

  it('refuses a missing required parameter and a bad value, whether or not the spec was used before', () => {
    expect(failure(() => parseParams(spec, {}))).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', msg: 'Missing \'queue_id\' argument', var_name: 'queue_id' });
    parseParams(spec, { queue_id: 'q1' });
    expect(failure(() => parseParams(spec, {}))).toMatchObject({ code: 'REQUEST_VARIABLE_MISSING', msg: 'Missing \'queue_id\' argument', var_name: 'queue_id' });
    expect(failure(() => parseParams(spec, { queue_id: 'q1', last_event_id: 'x' }))).toMatchObject({ msg: 'last_event_id is not an integer', var_name: 'last_event_id' });
  });

  it('takes path parameters before the query and body', () => {
    expect(parseParams(spec, { queue_id: 'from-body' }, { queue_id: 'from-path' }).args.queue_id).toBe('from-path');
  });
});
