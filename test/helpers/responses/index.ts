// The response-schema registry: one strict zod schema per response of the endpoints whose
// wire format was checked against Zulip's documentation at our feature level (406; see
// docs/feature-level.md). A field too many or too few fails `expectResponse`, and with it the
// test. The API objects (user, channel, subscription, message) are the event catalog's own
// strict schemas, so responses and events cannot drift apart.
import { expect } from 'vitest';
import { z } from 'zod';
import { folderObject, messageObject, streamObject, subscriptionObject, userObject, userShape } from '../../../src/events/catalog/objects.js';
import type { Reply } from '../client.js';
import { attachmentObject, realmEmojiObject } from '../../../src/events/catalog/files.js';
import { registerResponse, spectatorRegisterResponse, userStatusObject } from './register.js';

const success = { result: z.literal('success'), msg: z.string() };
const ignored = { ignored_parameters_unsupported: z.array(z.string()).optional() };
const int = () => z.number().int();
/** Answers that carry nothing but the envelope. */
const envelope = z.strictObject({ ...success, ...ignored });

/** GET /invites at 406: email invitations and reusable links (Zulip's invite dicts). */
const inviteShape = { id: int(), invited_by_user_id: int(), invited: int(), expiry_date: int().nullable(), invited_as: int() };
const listedInvite = z.union([
  z.strictObject({ ...inviteShape, email: z.string(), notify_referrer_on_join: z.boolean(), is_multiuse: z.literal(false) }),
  z.strictObject({ ...inviteShape, link_url: z.string(), is_multiuse: z.literal(true) }),
]);

/** A user object as GET /users and GET /users/{id} give it (is_active always present). */
const listedUser = userObject.refine((u) => typeof u.is_active === 'boolean', 'is_active missing');

/** GET /messages adds the caller's flags (and search matches) to each message object. */
const fetchedMessage = z.record(z.string(), z.unknown()).superRefine((m, ctx) => {
  const { flags, match_content: matchContent, match_subject: matchSubject, ...message } = m;
  if (!Array.isArray(flags) || !flags.every((f) => typeof f === 'string')) ctx.addIssue({ code: 'custom', message: 'flags missing' });
  if ((matchContent === undefined) !== (matchSubject === undefined)) ctx.addIssue({ code: 'custom', message: 'match_content without match_subject' });
  const parsed = messageObject.safeParse(message);
  if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')}: ${issue.message}` });
});

export const RESPONSES = {
  'GET /users/me': z.strictObject({ ...success, ...ignored, ...userShape, max_message_id: int() }),
  'GET /users': z.strictObject({ ...success, ...ignored, members: z.array(listedUser) }),
  'GET /users/{id}': z.strictObject({ ...success, ...ignored, user: listedUser }),
  'GET /streams': z.strictObject({ ...success, ...ignored, streams: z.array(streamObject) }),
  'GET /streams/{id}': z.strictObject({ ...success, ...ignored, stream: streamObject }),
  'GET /users/me/subscriptions': z.strictObject({ ...success, ...ignored, subscriptions: z.array(subscriptionObject) }),
  'GET /messages': z.strictObject({
    ...success, ...ignored,
    anchor: int().optional(),
    found_anchor: z.boolean(),
    found_oldest: z.boolean(),
    found_newest: z.boolean(),
    history_limited: z.boolean(),
    messages: z.array(fetchedMessage),
  }),
  'GET /server_settings': z.strictObject({
    ...success, ...ignored,
    authentication_methods: z.record(z.string(), z.boolean()),
    external_authentication_methods: z.array(z.unknown()),
    zulip_feature_level: z.literal(406),
    zulip_version: z.string(),
    zulip_merge_base: z.string(),
    push_notifications_enabled: z.boolean(),
    is_incompatible: z.boolean(),
    email_auth_enabled: z.boolean(),
    require_email_format_usernames: z.boolean(),
    realm_url: z.string(),
    realm_uri: z.string(),
    realm_name: z.string(),
    realm_icon: z.string(),
    realm_description: z.string(),
    realm_web_public_access_enabled: z.boolean(),
  }),
  'GET /messages/{id}/history': z.strictObject({
    ...success, ...ignored,
    message_history: z.array(z.strictObject({
      content: z.string(),
      rendered_content: z.string(),
      timestamp: int(),
      topic: z.string(),
      user_id: int().nullable(),
      prev_topic: z.string().optional(),
      prev_content: z.string().optional(),
      prev_rendered_content: z.string().optional(),
      content_html_diff: z.string().optional(),
      stream: int().optional(),
      prev_stream: int().optional(),
    })),
  }),
  'GET /messages/{id}/read_receipts': z.strictObject({ ...success, ...ignored, user_ids: z.array(int()) }),
  'GET /users/{id}/status': z.strictObject({ ...success, ...ignored, status: userStatusObject }),
  'GET /channel_folders': z.strictObject({ ...success, ...ignored, channel_folders: z.array(folderObject) }),
  'GET /bot_storage': z.strictObject({ ...success, ...ignored, storage: z.record(z.string(), z.string()) }),
  'POST /streams/{id}/delete_topic': z.strictObject({ ...success, ...ignored, complete: z.boolean() }),
  'PATCH /users/me/subscriptions': z.strictObject({
    ...success, ...ignored,
    subscribed: z.record(z.string(), z.array(z.string())),
    already_subscribed: z.record(z.string(), z.array(z.string())),
    unauthorized: z.array(z.string()).optional(),
    new_subscription_messages_sent: z.boolean().optional(),
    removed: z.array(z.string()),
    not_removed: z.array(z.string()),
  }),
  // Files: `filename` since 286, `uri` kept beside `url` (renamed at 272).
  'POST /user_uploads': z.strictObject({ ...success, ...ignored, uri: z.string(), url: z.string(), filename: z.string() }),
  'GET /user_uploads/{realm_id}/{filename}': z.strictObject({ ...success, ...ignored, url: z.string() }),
  'GET /attachments': z.strictObject({ ...success, ...ignored, attachments: z.array(attachmentObject), upload_space_used: int() }),
  'DELETE /attachments/{id}': envelope,
  'POST /users/me/avatar': z.strictObject({ ...success, ...ignored, avatar_url: z.string() }),
  'DELETE /users/me/avatar': z.strictObject({ ...success, ...ignored, avatar_url: z.string() }),
  'POST /realm/icon': z.strictObject({ ...success, ...ignored, icon_url: z.string() }),
  'DELETE /realm/icon': z.strictObject({ ...success, ...ignored, icon_url: z.string() }),
  'POST /realm/logo': envelope,
  'DELETE /realm/logo': envelope,
  'GET /realm/emoji': z.strictObject({ ...success, ...ignored, emoji: z.record(z.string(), realmEmojiObject) }),
  'POST /realm/emoji/{name}': envelope,
  'DELETE /realm/emoji/{name}': envelope,
  // Invitations and the email gateway.
  'POST /invites': envelope,
  'GET /invites': z.strictObject({ ...success, ...ignored, invites: z.array(listedInvite) }),
  'DELETE /invites/{id}': envelope,
  'POST /invites/{id}/resend': envelope,
  'GET /streams/{id}/email_address': z.strictObject({ ...success, ...ignored, email: z.string() }),
  /** Answers that carry nothing but the envelope (mute, status, storage writes, report, typing …). */
  'envelope only': envelope,
  'POST /register': registerResponse,
  'POST /register (spectator)': spectatorRegisterResponse,
} satisfies Record<string, z.ZodType>;

export type ResponseName = keyof typeof RESPONSES;

/** Asserts a success whose body matches its registered schema exactly; returns the body. */
export function expectResponse(name: ResponseName, reply: Reply): Reply['body'] {
  expect(reply.status, JSON.stringify(reply.body).slice(0, 500)).toBe(200);
  return expectBody(name, reply.body);
}

/** The same check for a body a client library already parsed (zulip-js). */
export function expectBody(name: ResponseName, body: Reply['body']): Reply['body'] {
  const reply = { body };
  const parsed = RESPONSES[name].safeParse(reply.body);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}${i.code === 'unrecognized_keys' ? ` (${i.keys.join(', ')})` : ''}`);
    expect.fail(`${name} does not match its schema:\n${problems.slice(0, 20).join('\n')}`);
  }
  return reply.body;
}
