// RFC 6570 URI templates with string values: parsing (validation), the variable
// names a template uses, and expansion. Zulip stores linkifier and playground
// URLs as such templates.

interface VarSpec {
  name: string;
  prefix?: number;
  explode: boolean;
}

interface Expression {
  operator: string;
  vars: VarSpec[];
}

export type TemplatePart = string | Expression;

const OPERATORS = new Set(['+', '#', '.', '/', ';', '?', '&']);
const RESERVED_OPERATORS = new Set(['=', ',', '!', '@', '|']);
// Literal characters allowed outside expressions (RFC 6570 section 2.1), besides
// non-ASCII characters and percent-encoded triplets.
const LITERAL_ASCII = /[!#$&()*+,\-./0-9:;=?@A-Z[\]_a-z~]/;
const VARNAME_RE = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;

export class UriTemplateError extends Error {}

/** Parse a template; throws UriTemplateError when it is not valid RFC 6570. */
export function parseUriTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let literal = '';
  let i = 0;
  while (i < template.length) {
    const ch = template[i];
    if (ch === '{') {
      const close = template.indexOf('}', i + 1);
      if (close === -1) throw new UriTemplateError('unclosed expression');
      if (literal) parts.push(literal);
      literal = '';
      parts.push(parseExpression(template.slice(i + 1, close)));
      i = close + 1;
      continue;
    }
    if (ch === '%') {
      if (!/^%[0-9A-Fa-f]{2}/.test(template.slice(i, i + 3))) throw new UriTemplateError('bad percent-encoding');
      literal += template.slice(i, i + 3);
      i += 3;
      continue;
    }
    const code = ch.codePointAt(0)!;
    if (code < 0x80 ? !LITERAL_ASCII.test(ch) : code < 0xa0) {
      throw new UriTemplateError(`character ${JSON.stringify(ch)} is not allowed`);
    }
    const full = String.fromCodePoint(code);
    literal += full;
    i += full.length;
  }
  if (literal) parts.push(literal);
  return parts;
}

function parseExpression(body: string): Expression {
  let operator = '';
  let rest = body;
  if (rest && (OPERATORS.has(rest[0]) || RESERVED_OPERATORS.has(rest[0]))) {
    operator = rest[0];
    rest = rest.slice(1);
    if (RESERVED_OPERATORS.has(operator)) throw new UriTemplateError(`operator ${operator} is reserved`);
  }
  if (!rest) throw new UriTemplateError('empty expression');
  const vars = rest.split(',').map((spec): VarSpec => {
    const m = /^(.*?)(?::([1-9][0-9]{0,3})|(\*))?$/.exec(spec)!;
    const name = m[1];
    if (!VARNAME_RE.test(name)) throw new UriTemplateError(`invalid variable name ${JSON.stringify(name)}`);
    return { name, prefix: m[2] ? Number(m[2]) : undefined, explode: Boolean(m[3]) };
  });
  return { operator, vars };
}

export function isValidUriTemplate(template: string): boolean {
  try {
    parseUriTemplate(template);
    return true;
  } catch (err) {
    if (err instanceof UriTemplateError) return false;
    throw err;
  }
}

/** Variable names used by a template, in order of first use. */
export function templateVariables(parts: TemplatePart[]): string[] {
  const names: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') continue;
    for (const v of part.vars) if (!names.includes(v.name)) names.push(v.name);
  }
  return names;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

function encode(value: string, allowReserved: boolean): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (UNRESERVED.test(ch) || (allowReserved && RESERVED.test(ch))) {
      out += ch;
    } else if (allowReserved && ch === '%' && /^%[0-9A-Fa-f]{2}/.test(value.slice(i, i + 3))) {
      out += value.slice(i, i + 3);
      i += 2;
    } else {
      const cp = value.codePointAt(i)!;
      const chars = String.fromCodePoint(cp);
      for (const byte of Buffer.from(chars, 'utf8')) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
      i += chars.length - 1;
    }
  }
  return out;
}

const OPERATOR_RULES: Record<string, { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

/** Expand a parsed template; variables that are undefined are left out. */
export function expandUriTemplate(parts: TemplatePart[], values: Record<string, string | undefined>): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    const rule = OPERATOR_RULES[part.operator];
    const pieces: string[] = [];
    for (const spec of part.vars) {
      const raw = Object.prototype.hasOwnProperty.call(values, spec.name) ? values[spec.name] : undefined;
      if (raw === undefined || raw === null) continue;
      const value = spec.prefix !== undefined ? [...raw].slice(0, spec.prefix).join('') : raw;
      const encoded = encode(value, rule.reserved);
      if (rule.named) {
        pieces.push(encode(spec.name, true) + (value === '' ? rule.ifEmpty : '=' + encoded));
      } else {
        pieces.push(encoded);
      }
    }
    if (pieces.length > 0) out += rule.first + pieces.join(rule.sep);
  }
  return out;
}
