// Channels: name rules, creation policy, lookups in the caller's realm, archiving and
// default channels. Creation itself happens through subscribing (actions/subscriptions.ts).
import { ApiError, badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { RealmState } from '../../model/realmState.js';
import type { Stream, User } from '../../model/types.js';
import { fakeEmailDomain } from '../../http/urls.js';
import { canSeeRealEmail, apiEmailIsReal } from '../../permissions/email.js';
import { MAX_STREAM_NAME_LENGTH } from '../../model/limits.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { canAccessChannelContent, canAccessChannelMetadata, canAdministerChannel, metadataAudience } from '../../permissions/channelAccess.js';
import { saveStream } from '../../db/streams.js';
import { publishDefaultStreams, channelDeleted, channelChanged } from './events.js';
import { isAdmin } from '../../model/roles.js';
import { hasCapability } from '../../events/shape.js';

export type TopicsPolicy = Stream['topicsPolicy'];
export const TOPICS_POLICIES: TopicsPolicy[] = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'];

export const invalidChannelId = () => badRequest('Invalid channel ID');

export const cannotManageDefaultChannels = () => badRequest('You do not have permission to change default channels.');

export const streamDoesNotExist = (name: string) =>
  new ApiError('STREAM_DOES_NOT_EXIST', `Channel '${name}' does not exist`, 400, { stream: name });

/** Zulip's check_stream_name: not empty, at most 60 code points, printable. Returns the trimmed name. */
export function checkChannelName(raw: string): string {
  const name = raw.trim();
  if (name === '') throw badRequest("Channel name can't be empty.");
  const chars = [...name];
  if (chars.length > MAX_STREAM_NAME_LENGTH) {
    throw badRequest(`Channel name too long (limit: ${MAX_STREAM_NAME_LENGTH} characters).`);
  }
  const bad = chars.findIndex((c) => /[\p{Cc}\p{Cs}\p{Cn}]/u.test(c));
  if (bad >= 0) throw badRequest(`Invalid character in channel name, at position ${bad + 1}.`);
  return name;
}

/** Descriptions are one line: Zulip turns newlines into spaces. */
export const normalizeDescription = (d: string) => d.replace(/\r?\n/g, ' ');

export function webPublicChannelsEnabled(actor: RealmActor): boolean {
  return actor.services.config.WEB_PUBLIC_STREAMS_ENABLED && actor.realm.settings.enable_spectator_access === true;
}

/** Parses message_retention_days: a positive number of days, "realm_default" (null) or "unlimited" (-1). */
export function parseRetentionDays(value: string | number): number | null {
  if (value === 'realm_default') return null;
  if (value === 'unlimited') return -1;
  if (typeof value === 'number' && Number.isInteger(value) && value > 0) return value;
  throw new ApiError('REQUEST_VARIABLE_INVALID', `Bad value for 'message_retention_days': ${String(value)}`, 400, {
    var_name: 'message_retention_days',
    bad_value: value,
  });
}


export function parseTopicsPolicy(value: string): TopicsPolicy {
  if (!TOPICS_POLICIES.includes(value as TopicsPolicy)) throw badRequest('Invalid topics_policy');
  return value as TopicsPolicy;
}

/**
 * The organization's channel-creation policy. Applied when a channel is created and, for the
 * privacy flags, when an existing channel's privacy changes (CVE-2025-47930).
 */
export function checkPrivacyPolicy(actor: RealmActor, user: User, opts: { inviteOnly?: boolean; isWebPublic?: boolean }): void {
  const { state } = actor;
  if (opts.inviteOnly === true && !hasRealmPermission(state, user, 'can_create_private_channel_group')) {
    throw badRequest('Insufficient permission');
  }
  if (opts.inviteOnly === false && !hasRealmPermission(state, user, 'can_create_public_channel_group')) {
    throw badRequest('Insufficient permission');
  }
  if (opts.isWebPublic === true) {
    if (!webPublicChannelsEnabled(actor)) throw badRequest('Web-public channels are not enabled.');
    if (!hasRealmPermission(state, user, 'can_create_web_public_channel_group')) throw badRequest('Insufficient permission');
  }
}

/** Resolves user ids or API emails inside the realm; deactivated or unknown users are an error. */
export function resolvePrincipals(actor: RealmActor, viewer: User, principals: number[] | string[]): User[] {
  const out = new Map<number, User>();
  for (const p of principals) {
    const user = typeof p === 'number' ? actor.user(p) : userByApiEmail(actor, viewer, p);
    if (!user || !user.isActive) throw badRequest(typeof p === 'number' ? `Invalid user ID: ${p}` : `No such user: ${p}`);
    out.set(user.id, user);
  }
  return [...out.values()];
}

function userByApiEmail(actor: RealmActor, viewer: User, email: string): User | undefined {
  const placeholder = /^user(\d+)@(.+)$/i.exec(email.trim());
  if (placeholder && placeholder[2]!.toLowerCase() === fakeEmailDomain(actor.services.config, actor.realm)) {
    return actor.user(Number(placeholder[1]));
  }
  const user = actor.state.userByEmail(email.trim());
  return user && (canSeeRealEmail(viewer, user) || apiEmailIsReal(user)) ? user : undefined;
}

/** A channel by id for reading its metadata; inaccessible and unknown ids look the same. */
export function channelForMetadata(state: RealmState, user: User, streamId: number, allowArchived = false): Stream {
  const stream = state.streams.get(streamId);
  if (!stream || !canAccessChannelMetadata(state, user, stream)) throw invalidChannelId();
  if (stream.isArchived && !allowArchived) throw invalidChannelId();
  return stream;
}

/** A channel by id that the user may read the messages of. */
export function channelForContent(state: RealmState, user: User, streamId: number, allowArchived = false): Stream {
  const stream = state.streams.get(streamId);
  if (!stream || !canAccessChannelContent(state, user, stream)) throw invalidChannelId();
  if (stream.isArchived && !allowArchived) throw invalidChannelId();
  return stream;
}

/**
 * A channel the user may edit or archive. A user who can read the channel but not administer it
 * is told so; to anyone else the channel does not exist.
 */
export function channelForAdministration(state: RealmState, user: User, streamId: number): Stream {
  const stream = state.streams.get(streamId);
  if (!stream) throw invalidChannelId();
  if (canAdministerChannel(state, user, stream)) return stream;
  if (canAccessChannelContent(state, user, stream)) {
    throw new ApiError('CANNOT_ADMINISTER_CHANNEL', 'You do not have permission to administer this channel.', 400);
  }
  throw invalidChannelId();
}

/** DELETE /streams/{id}: archives the channel; its subscriptions and messages stay. */
export function archiveChannel(actor: RealmActor, user: User, streamId: number): Promise<void> {
  return actor.exclusive(async () => {
    const stream = channelForAdministration(actor.state, user, streamId);
    if (stream.isArchived) throw badRequest('Channel is already deactivated');
    const audience = [...metadataAudience(actor.state, stream)];
    const wasDefault = stream.isDefault;
    const next: Stream = { ...stream, isArchived: true, isDefault: false };
    await saveStream(actor.sql, next);
    actor.state.putStream(next);
    if (wasDefault) publishDefaultStreams(actor);
    // Clients that understand archived channels keep them; older ones see the channel go away.
    actor.events.publish((q) => (hasCapability(q, 'archived_channels') ? channelChanged(next, 'is_archived', true) : null), audience);
    actor.events.publish((q) => (hasCapability(q, 'archived_channels') ? null : channelDeleted(next, true)), audience);
  });
}

/** POST /default_streams and DELETE /default_streams: organization administrators. */
export function setDefaultChannel(actor: RealmActor, user: User, streamId: number, isDefault: boolean): Promise<void> {
  return actor.exclusive(async () => {
    if (!isAdmin(user)) throw cannotManageDefaultChannels();
    const stream = isDefault ? channelForContent(actor.state, user, streamId) : channelForMetadata(actor.state, user, streamId, true);
    if (isDefault && stream.inviteOnly) throw badRequest('Private channels cannot be made default.');
    if (stream.isDefault === isDefault) return;
    const next: Stream = { ...stream, isDefault };
    await saveStream(actor.sql, next);
    actor.state.putStream(next);
    publishDefaultStreams(actor);
  });
}

