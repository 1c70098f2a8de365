// Text the way Zulip's Python code writes it, where our messages must match Zulip's byte for
// byte: `str(x)` of payload values, `repr()` of strings and bytes, and `json.dumps(x, indent=2)`
// (the generic JSON integration), which escapes non-ASCII text and writes floats as Python does.

/** Python's str() of a JSON value: None, True, False, and numbers as Python prints them. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : pyFloat(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** Python's repr() of a float: the shortest round-trip digits, fixed or exponent form by its rules. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = negative ? '-' : '';
  if (exp < -4 || exp >= 16) {
    const frac = digits.slice(1);
    const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    return `${sign}${digits[0]}${frac ? `.${frac}` : ''}e${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${whole}.${frac || '0'}`;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Python's repr() of a str. */
export function pyReprStr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ESCAPES[ch]) out += ESCAPES[ch];
    else if (ch === quote) out += `\\${quote}`;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's repr() of bytes. */
export function pyReprBytes(bytes: Uint8Array): string {
  const hasSingle = bytes.includes(0x27);
  const quote = hasSingle && !bytes.includes(0x22) ? '"' : "'";
  let out = `b${quote}`;
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    if (ESCAPES[ch]) out += ESCAPES[ch];
    else if (ch === quote) out += `\\${quote}`;
    else if (b < 0x20 || b >= 0x7f) out += `\\x${b.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}

/**
 * A JSON value as parsed keeping what JSON.parse loses: the order of object keys as written
 * (JavaScript objects put integer-like keys first) and the text of each number (Python keeps
 * `1.0` a float and big integers exact).
 */
export type OrderedJson =
  | { kind: 'object'; entries: Array<[string, OrderedJson]> }
  | { kind: 'array'; items: OrderedJson[] }
  | { kind: 'number'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'literal'; value: boolean | null };

/** Parses JSON text that JSON.parse has already accepted (so it need not report errors). */
export function parseOrderedJson(text: string): OrderedJson {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const value = (): OrderedJson => {
    ws();
    const c = text[i]!;
    if (c === '{') {
      i++;
      const entries: Array<[string, OrderedJson]> = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { kind: 'object', entries };
      }
      for (;;) {
        ws();
        const key = (value() as { value: string }).value;
        ws();
        i++; // ':'
        const v = value();
        // A repeated key keeps its first place and takes the last value, as a Python dict does.
        const at = entries.findIndex(([k]) => k === key);
        if (at >= 0) entries[at] = [key, v];
        else entries.push([key, v]);
        ws();
        if (text[i++] === '}') return { kind: 'object', entries };
      }
    }
    if (c === '[') {
      i++;
      const items: OrderedJson[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i++] === ']') return { kind: 'array', items };
      }
    }
    if (c === '"') {
      const start = i;
      i++;
      while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      return { kind: 'string', value: JSON.parse(text.slice(start, i)) as string };
    }
    for (const [word, literal] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return { kind: 'literal', value: literal };
      }
    }
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i))!;
    i += m[0].length;
    return { kind: 'number', text: m[0] };
  };
  return value();
}

/** A JSON string literal as Python's json.dumps writes it (ensure_ascii: non-ASCII as \uXXXX). */
function pyJsonString(s: string): string {
  let out = '"';
  for (let k = 0; k < s.length; k++) {
    const code = s.charCodeAt(k);
    const ch = s[k]!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}

function pyJsonNumber(text: string): string {
  if (/^-?\d+$/.test(text)) return text;
  return pyFloat(Number(text));
}

/** Python's json.dumps(value, indent=2). */
export function pyJsonDumps(v: OrderedJson, indent = 2, depth = 0): string {
  const pad = ' '.repeat(indent * (depth + 1));
  const close = ' '.repeat(indent * depth);
  switch (v.kind) {
    case 'object':
      if (v.entries.length === 0) return '{}';
      return `{\n${v.entries.map(([k, x]) => `${pad}${pyJsonString(k)}: ${pyJsonDumps(x, indent, depth + 1)}`).join(',\n')}\n${close}}`;
    case 'array':
      if (v.items.length === 0) return '[]';
      return `[\n${v.items.map((x) => `${pad}${pyJsonDumps(x, indent, depth + 1)}`).join(',\n')}\n${close}]`;
    case 'number':
      return pyJsonNumber(v.text);
    case 'string':
      return pyJsonString(v.value);
    case 'literal':
      return v.value === null ? 'null' : String(v.value);
  }
}

/** Python's string.punctuation. */
export const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Python's urllib.parse.unquote: %XX sequences decoded as UTF-8; malformed ones left as they are. */
export function pyUnquote(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replace(/%/g, ''), 'hex');
    return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  });
}
