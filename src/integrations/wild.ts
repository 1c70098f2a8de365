// Reading an untrusted payload: every access names where it looked, so a payload of the wrong
// shape gets a 400 saying which field is missing or of the wrong type (as Zulip's WildValue
// words it), never a crash.
import { badPayload, malformedJson } from './errors.js';
import { pyReprStr } from './python.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * A table's own entry for a name a payload or header chose: `constructor`, `toString` and the
 * like must not find what every object inherits.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

const isDict = (v: unknown): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

export class Wild {
  constructor(
    readonly path: string,
    readonly value: unknown,
  ) {}

  private needDict(): Record<string, Json> {
    if (!isDict(this.value)) throw badPayload(`${this.path} is not a dict`);
    return this.value;
  }

  private child(key: string | number, value: unknown): Wild {
    return new Wild(`${this.path}[${typeof key === 'string' ? pyReprStr(key) : key}]`, value);
  }

  /** `key in value` (the value must be a dict). */
  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.needDict(), key);
  }

  /** `value[key]`: a missing key or index is an error. */
  at(key: string | number): Wild {
    if (typeof key === 'number') {
      if (!Array.isArray(this.value)) throw badPayload(`${this.path} is not a list`);
      if (key >= this.value.length) throw badPayload(`${this.path}[${key}] is missing`);
      return this.child(key, this.value[key]);
    }
    const dict = this.needDict();
    if (!Object.prototype.hasOwnProperty.call(dict, key)) throw badPayload(`${this.path}[${pyReprStr(key)}] is missing`);
    return this.child(key, dict[key]);
  }

  /** `value.get(key, fallback)`. */
  get(key: string, fallback: unknown = null): Wild {
    const dict = this.needDict();
    if (Object.prototype.hasOwnProperty.call(dict, key)) return this.child(key, dict[key]);
    return fallback instanceof Wild ? fallback : this.child(key, fallback);
  }

  /** Python truthiness: None, False, 0, "", [] and {} are false. */
  get truthy(): boolean {
    const v = this.value;
    if (Array.isArray(v)) return v.length > 0;
    if (isDict(v)) return Object.keys(v).length > 0;
    return Boolean(v);
  }

  get isNull(): boolean {
    return this.value === null || this.value === undefined;
  }

  str(): string {
    if (typeof this.value !== 'string') throw badPayload(`${this.path} is not a string`);
    return this.value;
  }

  strOrNull(): string | null {
    return this.isNull ? null : this.str();
  }

  int(): number {
    if (typeof this.value !== 'number' || !Number.isInteger(this.value)) throw badPayload(`${this.path} is not an integer`);
    return this.value;
  }

  bool(): boolean {
    if (typeof this.value !== 'boolean') throw badPayload(`${this.path} is not a boolean`);
    return this.value;
  }

  /** One of the given strings (Zulip's check_string_in). */
  oneOf<T extends string>(allowed: readonly T[]): T {
    const s = this.value;
    if (typeof s !== 'string' || !allowed.includes(s as T)) throw badPayload(`Invalid ${this.path}`);
    return s as T;
  }

  /** Iterating a list. */
  list(): Wild[] {
    if (!Array.isArray(this.value)) throw badPayload(`${this.path} is not a list`);
    return this.value.map((v, i) => this.child(i, v));
  }

  /** A dict's items, in payload order. */
  entries(): Array<[string, Wild]> {
    return Object.entries(this.needDict()).map(([k, v]) => [k, this.child(k, v)]);
  }

  keys(): string[] {
    return Object.keys(this.needDict());
  }

  get length(): number {
    const v = this.value;
    if (Array.isArray(v) || typeof v === 'string') return v.length;
    if (isDict(v)) return Object.keys(v).length;
    throw badPayload(`${this.path} does not have a length`);
  }
}

/** The payload of a request: its body parsed as JSON. */
export function parseJsonBody(text: string, name = 'payload'): Wild {
  try {
    return new Wild(name, JSON.parse(text) as unknown);
  } catch {
    throw malformedJson();
  }
}
