// Custom profile fields: the eight types, how a definition and a user's value are checked,
// and how fields and users' `profile_data` look in the API.
import { badRequest } from '../model/errors.js';
import type { RealmState } from '../model/realmState.js';
import type { CustomProfileField } from '../model/types.js';

export const FieldType = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

const TYPE_NAMES: Record<number, string> = {
  1: 'Text (short)',
  2: 'Text (long)',
  3: 'List of options',
  4: 'Date picker',
  5: 'Link',
  6: 'Users',
  7: 'External account',
  8: 'Pronouns',
};

export const MAX_SUMMARY_FIELDS = 2;
const NAME_MAX_LENGTH = 40;
const HINT_MAX_LENGTH = 80;
const SHORT_VALUE_MAX = 50;
const LONG_VALUE_MAX = 500;

const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { text: string; name: string; hint: string; url_pattern: string }> = {
  github: { text: 'GitHub', name: 'GitHub', hint: 'Enter your GitHub username', url_pattern: 'https://github.com/%(username)s' },
  twitter: { text: 'Twitter', name: 'Twitter', hint: 'Enter your Twitter username', url_pattern: 'https://twitter.com/%(username)s' },
};

/** Register `realm_default_external_accounts`: the well-known account types, by subtype. */
export function defaultExternalAccounts(): Record<string, { text: string; name: string; hint: string; url_pattern: string }> {
  return Object.fromEntries(Object.entries(DEFAULT_EXTERNAL_ACCOUNTS).map(([k, v]) => [k, { ...v }]));
}

/** Register `custom_profile_field_types`. */
export function customProfileFieldTypes(): Record<string, { id: number; name: string }> {
  return Object.fromEntries(Object.entries(FieldType).map(([key, id]) => [key, { id, name: TYPE_NAMES[id]! }]));
}

export function formatField(f: CustomProfileField): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: f.id,
    name: f.name,
    type: f.fieldType,
    hint: f.hint,
    field_data: f.fieldData,
    order: f.order,
    required: f.required,
    editable_by_user: f.editableByUser,
  };
  if (f.displayInProfileSummary) out.display_in_profile_summary = true;
  return out;
}

/** Fields whose values are Markdown and get a `rendered_value`. */
export const isRenderable = (f: CustomProfileField) => f.fieldType === FieldType.SHORT_TEXT || f.fieldType === FieldType.LONG_TEXT;

export interface FieldDefinitionInput {
  fieldType: number;
  name: string;
  hint: string;
  fieldData: Record<string, unknown>;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

export type FieldDefinition = Omit<CustomProfileField, 'id' | 'realmId' | 'order'>;

function checkSelectData(data: Record<string, unknown>): string {
  const entries = Object.entries(data);
  if (entries.length === 0) throw badRequest('Field must have at least one choice.');
  const texts = new Set<string>();
  for (const [key, choice] of entries) {
    const c = choice as { text?: unknown; order?: unknown } | null;
    if (!c || typeof c !== 'object' || typeof c.text !== 'string' || typeof c.order !== 'string') {
      throw badRequest(`field_data["${key}"] must have "text" and "order" strings`);
    }
    if (c.text.trim() === '') throw badRequest(`field_data["${key}"]["text"] cannot be blank.`);
    if (texts.has(c.text)) throw badRequest('Field must not have duplicate choices.');
    texts.add(c.text);
  }
  return JSON.stringify(Object.fromEntries(entries.map(([k, c]) => [k, { text: (c as { text: string }).text, order: (c as { order: string }).order }])));
}

function checkExternalAccountData(data: Record<string, unknown>): { fieldData: string; subtype: string } {
  const subtype = data.subtype;
  if (typeof subtype !== 'string') throw badRequest('field_data["subtype"] is not a string');
  if (subtype === 'custom') {
    const pattern = data.url_pattern;
    if (typeof pattern !== 'string' || pattern === '') throw badRequest('Custom external account must define URL pattern');
    const holes = pattern.split('%(username)s').length - 1;
    if (holes !== 1 || !/^https?:\/\//.test(pattern)) throw badRequest('Malformed URL pattern.');
    return { fieldData: JSON.stringify({ subtype, url_pattern: pattern }), subtype };
  }
  if (!DEFAULT_EXTERNAL_ACCOUNTS[subtype]) throw badRequest('Invalid external account type');
  return { fieldData: JSON.stringify({ subtype }), subtype };
}

/** Checks a field definition (create or edit) and returns what is stored. */
export function checkFieldDefinition(input: FieldDefinitionInput): FieldDefinition {
  if (!Object.values(FieldType).includes(input.fieldType as never)) throw badRequest('Invalid field type.');
  let name = input.name;
  let hint = input.hint;
  let fieldData = '';
  if (input.fieldType === FieldType.SELECT) fieldData = checkSelectData(input.fieldData);
  if (input.fieldType === FieldType.EXTERNAL_ACCOUNT) {
    const ext = checkExternalAccountData(input.fieldData);
    fieldData = ext.fieldData;
    const preset = DEFAULT_EXTERNAL_ACCOUNTS[ext.subtype];
    // Well-known accounts carry their own label and hint.
    if (preset) {
      name = name.trim() === '' ? preset.name : name;
      hint = hint === '' ? preset.hint : hint;
    }
  }
  if (name.trim() === '') throw badRequest('Label cannot be blank.');
  if (name.length > NAME_MAX_LENGTH) throw badRequest(`name is too long (limit: ${NAME_MAX_LENGTH} characters)`);
  if (hint.length > HINT_MAX_LENGTH) throw badRequest(`hint is too long (limit: ${HINT_MAX_LENGTH} characters)`);
  if (input.displayInProfileSummary && (input.fieldType === FieldType.LONG_TEXT || input.fieldType === FieldType.USER)) {
    throw badRequest('Field type not supported for display in profile summary.');
  }
  return {
    name: name.trim(),
    hint,
    fieldType: input.fieldType,
    fieldData,
    displayInProfileSummary: input.displayInProfileSummary,
    required: input.required,
    editableByUser: input.editableByUser,
  };
}

function isValidDate(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const d = new Date(`${v}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().startsWith(v);
}

function isValidUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Checks a user's value for a field and returns its stored text form. */
export function checkFieldValue(state: RealmState, field: CustomProfileField, raw: unknown): string {
  const name = field.name;
  if (field.fieldType === FieldType.USER) {
    let ids = raw;
    if (typeof raw === 'string') {
      try {
        ids = JSON.parse(raw);
      } catch {
        throw badRequest(`${name} is not a list`);
      }
    }
    if (!Array.isArray(ids) || ids.some((id) => !Number.isInteger(id))) throw badRequest(`${name} is not a list`);
    for (const id of ids as number[]) if (!state.users.get(id)) throw badRequest(`Invalid user ID: ${id}`);
    return JSON.stringify(ids);
  }
  if (typeof raw !== 'string') throw badRequest(`${name} is not a string`);
  switch (field.fieldType) {
    case FieldType.LONG_TEXT:
      if (raw.length > LONG_VALUE_MAX) throw badRequest(`${name} is too long (limit: ${LONG_VALUE_MAX} characters)`);
      return raw;
    case FieldType.SELECT: {
      const choices = JSON.parse(field.fieldData || '{}') as Record<string, unknown>;
      if (!(raw in choices)) throw badRequest(`'${raw}' is not a valid choice for '${name}'.`);
      return raw;
    }
    case FieldType.DATE:
      if (!isValidDate(raw)) throw badRequest(`${name} is not a date`);
      return raw;
    case FieldType.URL:
      if (!isValidUrl(raw)) throw badRequest(`${name} is not a URL`);
      return raw;
    default:
      if (raw.length > SHORT_VALUE_MAX) throw badRequest(`${name} is too long (limit: ${SHORT_VALUE_MAX} characters)`);
      return raw;
  }
}

/** A user's `profile_data` (spec 2.1): field id → {value, rendered_value?}. */
export function profileDataFor(state: RealmState, userId: number): Record<string, { value: string; rendered_value?: string }> {
  const out: Record<string, { value: string; rendered_value?: string }> = {};
  for (const v of state.profileValues.get(userId)?.values() ?? []) {
    if (!state.profileFields.has(v.fieldId)) continue;
    out[String(v.fieldId)] = v.renderedValue === null ? { value: v.value } : { value: v.value, rendered_value: v.renderedValue };
  }
  return out;
}
