// Parameters of the scheduled messages, reminders, drafts, saved snippets and navigation views
// endpoints, with the messages Zulip's typed endpoints give (`title cannot be blank`,
// `drafts[0]["to"] is not a list` …).
import { z } from 'zod';
import type { DraftInput } from '../actions/later/drafts.js';

const fail = (ctx: z.RefinementCtx, message: string) => {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER;
};

const parseJson = (raw: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch {
    return { ok: false };
  }
};

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** `to` of a scheduled message: JSON, a channel id or a list of user ids. */
export const intOrIntList = (name: string) =>
  z.string().transform((raw, ctx): number | number[] => {
    const parsed = parseJson(raw);
    if (!parsed.ok) return fail(ctx, `${name} is not valid JSON`);
    const v = parsed.value;
    if (isInt(v)) return v;
    if (Array.isArray(v) && v.every(isInt)) return v;
    // Pydantic names the first member of the union it tried.
    return fail(ctx, `${name}["int"] is not an integer`);
  });

/** A string trimmed of surrounding white space, then checked for length (code points). */
export const trimmedString = (name: string, max?: number) =>
  z.string().transform((raw, ctx) => {
    const s = raw.trim();
    if (s.length === 0) return fail(ctx, `${name} cannot be blank`);
    if (max !== undefined && [...s].length > max) return fail(ctx, `${name} is too long (limit: ${max} characters)`);
    return s;
  });

const DRAFT_KEYS = new Set(['type', 'to', 'topic', 'content', 'timestamp']);

/** Zulip's DraftData, strict: names in errors follow the value's place (`drafts[0]["to"]`). */
function checkDraftData(v: unknown, where: string): DraftInput | string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return `${where} is not a dict`;
  const d = v as Record<string, unknown>;
  for (const key of Object.keys(d)) if (!DRAFT_KEYS.has(key)) return `Argument "${key}" at ${where}[${JSON.stringify(key)}] is unexpected`;
  const at = (key: string) => `${where}[${JSON.stringify(key)}]`;
  for (const key of ['type', 'to', 'topic', 'content']) if (!(key in d)) return `${at(key)} is missing`;
  if (d.type !== '' && d.type !== 'stream' && d.type !== 'private') return `Invalid ${at('type')}`;
  if (!Array.isArray(d.to)) return `${at('to')} is not a list`;
  const bad = d.to.findIndex((x) => !isInt(x));
  if (bad >= 0) return `${at('to')}[${bad}] is not an integer`;
  if (typeof d.topic !== 'string') return `${at('topic')} is not a string`;
  if (typeof d.content !== 'string') return `${at('content')} is not a string`;
  if (d.content.trim() === '') return `${at('content')} cannot be blank`;
  const ts = d.timestamp;
  if (ts !== undefined && ts !== null && (typeof ts !== 'number' || !Number.isFinite(ts))) return `${at('timestamp')} is not a float`;
  return { type: d.type, to: d.to as number[], topic: d.topic, content: d.content, timestamp: ts as number | null | undefined };
}

export const draftParam = (name: string) =>
  z.string().transform((raw, ctx): DraftInput => {
    const parsed = parseJson(raw);
    if (!parsed.ok) return fail(ctx, `${name} is not valid JSON`);
    const checked = checkDraftData(parsed.value, name);
    return typeof checked === 'string' ? fail(ctx, checked) : checked;
  });

export const draftListParam = (name: string) =>
  z.string().transform((raw, ctx): DraftInput[] => {
    const parsed = parseJson(raw);
    if (!parsed.ok) return fail(ctx, `${name} is not valid JSON`);
    if (!Array.isArray(parsed.value)) return fail(ctx, `${name} is not a list`);
    const out: DraftInput[] = [];
    for (const [i, v] of parsed.value.entries()) {
      const checked = checkDraftData(v, `${name}[${i}]`);
      if (typeof checked === 'string') return fail(ctx, checked);
      out.push(checked);
    }
    return out;
  });
