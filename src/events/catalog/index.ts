// The event catalog: every event the server sends, as one typed union (ServerEvent) built by
// the named constructors of each family, and the same shapes as zod schemas. Actions publish
// only what the constructors build, so a wrong field fails to compile; the test client
// validates every event it receives against `serverEventSchema` (nested API objects included),
// so a field the server should not send fails the tests.
import { z } from 'zod';
import { messageEventSchemas, type DeleteMessageEvent, type MessageEvent, type ReactionEvent, type TypingEvent, type UpdateMessageEvent, type UpdateMessageFlagsEvent, type UserTopicEvent, type MutedTopicsEvent } from './messages.js';
import { channelEventSchemas, type ChannelFolderEvent, type DefaultStreamsEvent, type StreamEvent, type SubscriptionEvent } from './channels.js';
import { userEventSchemas, type AlertWordsEvent, type CustomProfileFieldsEvent, type LegacySettingsEvent, type PresenceEvent, type RealmBotEvent, type RealmUserEvent, type UserSettingsEvent } from './users.js';
import { groupEventSchemas, type UserGroupEvent } from './groups.js';
import { realmEventSchemas, type InvitesChangedEvent, type RealmEvent, type RealmLinkifiersEvent, type RealmPlaygroundsEvent, type RealmUserSettingsDefaultsEvent } from './realm.js';
import { fileEventSchemas, type AttachmentEvent } from './files.js';
import { serverEventSchemas, type RestartEvent } from './server.js';
import { laterEventSchemas, type DraftsEvent, type NavigationViewEvent, type RemindersEvent, type SavedSnippetsEvent, type ScheduledMessagesEvent } from './later.js';
import { personalEventSchemas, type MutedUsersEvent, type TypingEditMessageEvent, type UserStatusEvent } from './personal.js';

export * from './messages.js';
export * from './channels.js';
export * from './users.js';
export * from './groups.js';
export * from './realm.js';
export * from './later.js';
export * from './personal.js';
export * from './files.js';
export * from './server.js';
export type { ApiObject } from './objects.js';

export const heartbeatEventSchema = z.strictObject({ type: z.literal('heartbeat') });
export type HeartbeatEvent = z.infer<typeof heartbeatEventSchema>;
export const heartbeatEvent = (): HeartbeatEvent => ({ type: 'heartbeat' });

/** Every event a queue can hold. */
export type ServerEvent =
  | MessageEvent | UpdateMessageEvent | DeleteMessageEvent | UpdateMessageFlagsEvent | ReactionEvent | TypingEvent | UserTopicEvent | MutedTopicsEvent
  | StreamEvent | SubscriptionEvent | DefaultStreamsEvent | ChannelFolderEvent
  | RealmUserEvent | RealmBotEvent | UserSettingsEvent | LegacySettingsEvent | AlertWordsEvent | PresenceEvent | CustomProfileFieldsEvent
  | UserGroupEvent
  | RealmEvent | RealmUserSettingsDefaultsEvent | RealmLinkifiersEvent | RealmPlaygroundsEvent | InvitesChangedEvent
  | ScheduledMessagesEvent | RemindersEvent | DraftsEvent | SavedSnippetsEvent | NavigationViewEvent
  | MutedUsersEvent | UserStatusEvent | TypingEditMessageEvent | AttachmentEvent | RestartEvent
  | HeartbeatEvent;

export type EventType = ServerEvent['type'];

const allSchemas: z.ZodType[] = [
  ...messageEventSchemas, ...channelEventSchemas, ...userEventSchemas, ...groupEventSchemas, ...realmEventSchemas, ...laterEventSchemas,
  ...personalEventSchemas, ...fileEventSchemas, ...serverEventSchemas,
  heartbeatEventSchema,
];

interface SchemaDef {
  type: string;
  options?: z.ZodType[];
  shape?: Record<string, z.ZodType>;
  values?: unknown[];
}
const defOf = (schema: z.ZodType) => (schema as unknown as { def: SchemaDef }).def;

/** The object shapes of a schema: itself, or the options of a union. */
const shapesOf = (schema: z.ZodType): z.ZodType[] => {
  const def = defOf(schema);
  return def.type === 'union' ? def.options!.flatMap(shapesOf) : [schema];
};

/** Every event shape, by its `type` (several shapes share a type: they are tried in turn). */
const byType = new Map<string, z.ZodType[]>();
for (const shape of allSchemas.flatMap(shapesOf)) {
  const typeSchema = defOf(shape).shape?.type;
  for (const type of typeSchema ? (defOf(typeSchema).values ?? []) : []) {
    let list = byType.get(String(type));
    if (!list) byType.set(String(type), (list = []));
    list.push(shape);
  }
}

/** A readable account of what failed; for a union, the option that came closest. */
function describeIssues(issues: z.core.$ZodIssue[], path: PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const where = [...path, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0]!;
      return describeIssues(closest, where);
    }
    return [`${where.map(String).join('.') || '(event)'}: ${issue.message}${issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : ''}`];
  });
}

/** The event types of the catalog. */
export const EVENT_TYPES = [...byType.keys()];

/**
 * Checks one event as a client receives it (with its queue `id`): null when it matches a
 * catalog shape exactly, else what is wrong.
 */
export function checkEvent(event: unknown): string | null {
  if (event === null || typeof event !== 'object') return 'not an object';
  const { id, ...rest } = event as Record<string, unknown>;
  if (typeof id !== 'number' || !Number.isInteger(id)) return 'missing or non-integer id';
  const schemas = byType.get(String(rest.type));
  if (!schemas) return `unknown event type ${JSON.stringify(rest.type)}`;
  // Shapes of the event's `op` first: their errors are the ones worth reading.
  const opOf = (shape: z.ZodType) => { const op = defOf(shape).shape?.op; return op ? (defOf(op).values ?? []).map(String) : null; };
  const candidates = schemas.filter((shape) => opOf(shape)?.includes(String(rest.op)) ?? true);
  let best: string[] | null = null;
  for (const schema of candidates.length ? candidates : schemas) {
    const parsed = schema.safeParse(rest);
    if (parsed.success) return null;
    const problems = describeIssues(parsed.error.issues);
    if (!best || problems.length < best.length) best = problems;
  }
  return best!.join('; ');
}
