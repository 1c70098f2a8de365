// Creating channels for POST /users/me/subscriptions: the creation policy, the settings of the
// new channels, and their rows.
import { badRequest, mustBeOwner } from '../../model/errors.js';
import type { Sql } from '../../db/connect.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Stream, User } from '../../model/types.js';
import type { GroupSettingValue } from '../../permissions/groups.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { CHANNEL_SETTING_NAMES, defaultChannelSetting, parseChannelGroupSetting } from '../../permissions/channelSettings.js';
import { insertStream } from '../../db/streams.js';
import { renderContent } from '../messages/render.js';
import { checkPrivacyPolicy, normalizeDescription, parseRetentionDays, parseTopicsPolicy, type TopicsPolicy } from './channels.js';
import { isAdmin, isOwner } from '../../model/roles.js';

export interface NewChannelOptions {
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefaultStream: boolean;
  /** null/undefined: private channels get protected history, public ones shared history. */
  historyPublicToSubscribers?: boolean | null;
  messageRetentionDays: string | number;
  topicsPolicy?: string;
  /** Only the settings the client gave; the rest get the channel defaults. */
  groupSettings: Record<string, GroupSettingValue>;
  folderId?: number | null;
}

export interface PreparedChannel {
  name: string;
  description: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isDefault: boolean;
  messageRetentionDays: number | null;
  topicsPolicy: TopicsPolicy;
  folderId: number | null;
  settings: Record<string, GroupSettingValue>;
}

/** Checks everything about channels to be created before anything is written. */
export function prepareNewChannels(
  actor: RealmActor,
  acting: User,
  channels: { name: string; description?: string }[],
  o: NewChannelOptions,
): PreparedChannel[] {
  const { state } = actor;
  checkPrivacyPolicy(actor, acting, { inviteOnly: o.inviteOnly, isWebPublic: o.isWebPublic });
  if (o.isWebPublic && o.inviteOnly) throw badRequest('Invalid parameters');
  if (o.isDefaultStream && !isAdmin(acting)) throw badRequest('Insufficient permission');
  if (o.isDefaultStream && o.inviteOnly) throw badRequest('A default channel cannot be private.');
  const retention = parseRetentionDays(o.messageRetentionDays);
  if (retention !== null && !isOwner(acting)) throw mustBeOwner();
  const topicsPolicy = o.topicsPolicy === undefined ? 'inherit' : parseTopicsPolicy(o.topicsPolicy);
  if (topicsPolicy !== 'inherit' && !hasRealmPermission(state, acting, 'can_set_topics_policy_group')) {
    throw badRequest('Insufficient permission');
  }
  // Public channels always share their history with subscribers.
  const history = o.inviteOnly ? (o.historyPublicToSubscribers ?? false) : true;
  const settings: Record<string, GroupSettingValue> = {};
  for (const name of CHANNEL_SETTING_NAMES) {
    const given = o.groupSettings[name];
    if (given === undefined) {
      settings[name] = defaultChannelSetting(state, name, acting);
      continue;
    }
    settings[name] = parseChannelGroupSetting(state, name, given);
  }
  const folderId = o.folderId ?? null;
  if (folderId !== null && !state.channelFolders.has(folderId)) {
    throw badRequest('Invalid channel folder ID');
  }
  return channels.map((c) => ({
    name: c.name,
    description: normalizeDescription(c.description ?? ''),
    inviteOnly: o.inviteOnly,
    isWebPublic: o.isWebPublic,
    historyPublicToSubscribers: history,
    isDefault: o.isDefaultStream,
    messageRetentionDays: retention,
    topicsPolicy,
    folderId,
    settings,
  }));
}

/** Inserts prepared channels inside the caller's transaction; memory is updated by the caller. */
export async function createChannelRows(actor: RealmActor, tx: Sql, creator: User, prepared: PreparedChannel[]): Promise<Stream[]> {
  const out: Stream[] = [];
  for (const p of prepared) {
    const rendered = p.description ? (await renderContent(actor, p.description, { senderId: creator.id })).html : '';
    out.push(
      await insertStream(tx, {
        realmId: actor.realm.id,
        name: p.name,
        description: p.description,
        renderedDescription: rendered,
        creatorId: creator.id,
        inviteOnly: p.inviteOnly,
        isWebPublic: p.isWebPublic,
        historyPublicToSubscribers: p.historyPublicToSubscribers,
        isDefault: p.isDefault,
        messageRetentionDays: p.messageRetentionDays,
        folderId: p.folderId,
        topicsPolicy: p.topicsPolicy,
        settings: p.settings,
      }),
    );
  }
  return out;
}
