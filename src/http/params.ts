// Parameter schemas for endpoints. Form values arrive as strings: integers and booleans are
// coerced, arrays and objects are JSON text inside the value. Every endpoint declares its
// parameters with these; parseParams reports the first problem with Zulip's codes.
import { z } from 'zod';
import { ApiError, missingArgument } from '../model/errors.js';

export type RawParams = Record<string, string>;
export type ParamSpec = Record<string, z.ZodType>;
export type Args<P extends ParamSpec> = { [K in keyof P]: z.output<P[K]> };

const toInt = (v: unknown) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v);
const toBool = (v: unknown) => (v === 'true' ? true : v === 'false' ? false : v);
const fromJson = (v: unknown) => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
};

/** Like fromJson, but a bare string that is not JSON stays a string (e.g. `to=general`). */
const jsonOrString = (v: unknown) => {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (t.startsWith('[') || t.startsWith('{') || t.startsWith('"') || /^-?\d+$/.test(t)) return fromJson(t);
  return v;
};

/**
 * The widest integer a parameter takes (what a JavaScript number holds exactly); a larger one
 * is refused as not an integer. Fields with a narrower domain (durations added to dates) bound
 * themselves.
 */
export const MAX_INT_PARAM = Number.MAX_SAFE_INTEGER;

export const p = {
  string: () => z.string(),
  int: () => z.preprocess(toInt, z.number().int().min(-MAX_INT_PARAM).max(MAX_INT_PARAM)),
  bool: () => z.preprocess(toBool, z.boolean()),
  /** A JSON value inside a form field (arrays, objects, numbers). */
  json: <T extends z.ZodType>(schema: T) => z.preprocess(fromJson, schema),
  /** A value that may be JSON or plain text (Zulip accepts both for some fields). */
  jsonOrString: <T extends z.ZodType>(schema: T) => z.preprocess(jsonOrString, schema),
  intList: () => z.preprocess(fromJson, z.array(z.number().int().safe())),
  stringList: () => z.preprocess(fromJson, z.array(z.string())),
};

function describeIssue(name: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const expected = issue.expected;
    const noun: Record<string, string> = {
      number: 'an integer', int: 'an integer', boolean: 'a boolean', array: 'a list',
      string: 'a string', object: 'a dict', record: 'a dict',
    };
    const where = issue.path.length ? `${name}[${issue.path.join('][')}]` : name;
    if (noun[expected]) return `${where} is not ${noun[expected]}`;
  }
  if (issue.code === 'too_big' && issue.origin === 'string') {
    return `${name} is too long (limit: ${String(issue.maximum)} characters)`;
  }
  if (issue.message && !issue.message.startsWith('Invalid input') && !issue.message.startsWith('Too ')) {
    return issue.message;
  }
  return `Invalid ${name}`;
}

/**
 * Postgres text cannot hold NUL, and Zulip refuses it in every text parameter (its
 * `check_string` family): a NUL sent as is, or inside JSON as `\u0000`, is refused before a
 * handler runs. Other control characters are left to each field's own rules (topics and
 * channel names refuse them, message content keeps tabs and newlines), as Zulip does.
 */
function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (k.includes('\0') || containsNul(v)) return true;
  }
  return false;
}

const NUL_MESSAGES: Record<string, string> = {
  content: 'Message must not contain null bytes',
};

/** JSON parameters whose fields each carry Zulip's own NUL message (a draft's topic and content). */
const NUL_CHECKED_BY_FIELD = new Set(['drafts']);

function refuseNul(name: string, raw: unknown, parsed: unknown): void {
  if (typeof raw !== 'string') return;
  if (NUL_CHECKED_BY_FIELD.has(name) && !raw.includes('\0')) return;
  const direct = raw.includes('\0');
  if (!direct && !(raw.includes('\\u0000') && containsNul(parsed))) return;
  throw new ApiError('BAD_REQUEST', NUL_MESSAGES[name] ?? `${name} contains NULL (0x00) characters.`, 400, { var_name: name });
}

/** A parameter of a spec, with its schema's answer to an absent value (asked once). */
interface PlannedParam {
  name: string;
  schema: z.ZodType;
  absent: z.ZodSafeParseResult<unknown>;
  /** The absent answer is a plain value (undefined, a number, boolean or string), or a failure: the same each time. */
  fixed: boolean;
}

/**
 * Per spec, its parameters with their absent answers, made once: a request sends a few of an
 * endpoint's parameters (a long-poll two of its sixteen), and a busy queue shard parses
 * thousands of polls a second.
 */
const plans = new WeakMap<ParamSpec, PlannedParam[]>();

function planOf(spec: ParamSpec): PlannedParam[] {
  let plan = plans.get(spec);
  if (plan) return plan;
  plan = Object.entries(spec).map(([name, schema]) => {
    const absent = schema.safeParse(undefined);
    return { name, schema, absent, fixed: !absent.success || absent.data === null || typeof absent.data !== 'object' };
  });
  plans.set(spec, plan);
  return plan;
}

/**
 * The answer to an absent value. A default that is an empty list or dict is a new one each
 * time (a handler may fill it); another object default is asked of the schema anew.
 */
function parseAbsent(param: PlannedParam): z.ZodSafeParseResult<unknown> {
  if (param.fixed) return param.absent;
  const data = param.absent.data;
  if (Array.isArray(data) && data.length === 0) return { success: true, data: [] };
  if (Object.getPrototypeOf(data) === Object.prototype && Object.keys(data as object).length === 0) return { success: true, data: {} };
  return param.schema.safeParse(undefined);
}

export function parseParams<P extends ParamSpec>(
  spec: P,
  raw: RawParams,
  pathParams: Record<string, string> = {},
): { args: Args<P>; ignored: string[] } {
  const args: Record<string, unknown> = {};
  for (const param of planOf(spec)) {
    const name = param.name;
    const value = name in pathParams ? pathParams[name] : raw[name];
    if (value === undefined && param.fixed && param.absent.success) {
      args[name] = param.absent.data;
      continue;
    }
    const parsed = value === undefined ? parseAbsent(param) : param.schema.safeParse(value);
    refuseNul(name, value, parsed.success ? parsed.data : undefined);
    if (!parsed.success) {
      if (value === undefined) throw missingArgument(name);
      const issue = parsed.error.issues[0]!;
      throw new ApiError('BAD_REQUEST', describeIssue(name, issue), 400, { var_name: name });
    }
    args[name] = parsed.data;
  }
  const ignored = Object.keys(raw).filter((k) => !(k in spec));
  return { args: args as Args<P>, ignored };
}
