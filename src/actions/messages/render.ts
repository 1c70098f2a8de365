// Markdown to HTML for messages, channel and folder descriptions and profile fields, with what
// the content mentions. Rendering runs in the worker's render pool (src/render) with a time
// budget; this file builds the small per-message context the renderer needs from the realm's
// memory: only the users, groups and channels the content names, as the sender may see them.
import { ApiError, badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { realmUrl } from '../../http/urls.js';
import { RenderTimeoutError, scanContent } from '../../render/index.js';
import type { RenderChannel, RenderContext, RenderRealmEmoji, RenderResult, RenderUser, RenderUserGroup } from '../../render/index.js';
import { emojiSourceUrl } from '../../views/realmEmoji.js';
import { canAccessChannelMetadata } from '../../permissions/channelAccess.js';
import { userInGroupSetting, type GroupSettingValue } from '../../permissions/groups.js';
import { canAccessUser } from '../../permissions/userAccess.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../model/limits.js';
import { renderLinkifiers } from '../../views/topicLinks.js';
import { realmProperty } from '../../permissions/realmSettings.js';

export interface RenderedContent {
  html: string;
  /** Users mentioned non-silently (they get the `mentioned` flag). */
  mentionedUserIds: number[];
  /** Users mentioned silently (`@_**Name**`, inside quotes, deactivated users). */
  silentlyMentionedUserIds: number[];
  /** Groups mentioned non-silently; see checkGroupMentions. */
  mentionedGroupIds: number[];
  wildcards: { stream: boolean; topic: boolean };
  isMeMessage: boolean;
  /** URLs the content links to (Markdown links, bare URLs, linkifier links). */
  links: string[];
  hasImage: boolean;
  hasLink: boolean;
}

export interface RenderOptions {
  /**
   * Whose content it is. Mentions and channel links resolve as this user sees the realm, and
   * their emoticon setting applies. Without it (realm-level text) only public channels link.
   */
  senderId?: number;
}

export const renderTimedOut = () => badRequest('Unable to render message');

/** The users `@**Name**` / `@**Name|id**` may refer to; the renderer picks the match. */
function mentionableUsers(actor: RealmActor, sender: User | null, names: string[], ids: number[]): RenderUser[] {
  if (names.length === 0 && ids.length === 0) return [];
  const { state } = actor;
  const wanted = new Set(names);
  const candidates = new Map<number, User>();
  for (const id of ids) {
    const user = state.users.get(id);
    if (user) candidates.set(id, user);
  }
  if (wanted.size > 0) {
    for (const user of state.users.values()) if (wanted.has(user.fullName.toLowerCase())) candidates.set(user.id, user);
  }
  const out: RenderUser[] = [];
  for (const user of candidates.values()) {
    // A guest limited to the users it shares channels with cannot mention the others.
    if (sender && !canAccessUser(state, sender, user)) continue;
    out.push({ id: user.id, full_name: user.fullName, is_active: user.isActive });
  }
  return out;
}

function mentionableGroups(actor: RealmActor, names: string[]): RenderUserGroup[] {
  if (names.length === 0) return [];
  const wanted = new Set(names);
  const out: RenderUserGroup[] = [];
  for (const group of actor.state.groups.values()) {
    if (!wanted.has(group.name.toLowerCase())) continue;
    out.push({
      id: group.id,
      name: group.name,
      is_system_group: group.isSystemGroup,
      description: group.description,
      deactivated: group.deactivated,
    });
  }
  return out;
}

/** Channels the content links to that the sender may know of, with the linked topics' latest ids. */
function linkableChannels(actor: RealmActor, sender: User | null, names: string[], topics: Array<[string, string]>): RenderChannel[] {
  if (names.length === 0) return [];
  const { state } = actor;
  const out: RenderChannel[] = [];
  const byLowerName = new Map<string, RenderChannel>();
  for (const name of names) {
    const stream = state.streamByName(name);
    if (!stream || byLowerName.has(stream.name.toLowerCase())) continue;
    const visible = sender ? canAccessChannelMetadata(state, sender, stream) : !stream.inviteOnly;
    if (!visible) continue;
    const channel: RenderChannel = { id: stream.id, name: stream.name };
    byLowerName.set(stream.name.toLowerCase(), channel);
    out.push(channel);
  }
  for (const [channelName, topic] of topics) {
    const channel = byLowerName.get(channelName.toLowerCase());
    if (!channel) continue;
    const stream = state.streams.get(channel.id)!;
    const latest = state.messaging.topic(stream.id, topic)?.maxId;
    if (latest === undefined) continue;
    (channel.topicLatestMessageIds ??= {})[topic.toLowerCase()] = latest;
  }
  return out;
}

/** Active custom emoji whose `:name:` the content may use. */
function renderRealmEmoji(actor: RealmActor, content: string): RenderRealmEmoji[] {
  const out: RenderRealmEmoji[] = [];
  for (const e of actor.state.realmEmoji.values()) {
    if (e.deactivated || !content.includes(`:${e.name}:`)) continue;
    out.push({ id: e.id, name: e.name, source_url: emojiSourceUrl(actor.realm.id, e), deactivated: false });
  }
  return out;
}

/** The context for rendering `content`: only what it refers to crosses to the render thread. */
export function renderContextFor(actor: RealmActor, content: string, opts: RenderOptions = {}): RenderContext {
  const sender = opts.senderId === undefined ? null : (actor.user(opts.senderId) ?? null);
  const refs = scanContent(content);
  const codeLanguage = realmProperty(actor.state, 'default_code_block_language');
  return {
    realmUrl: realmUrl(actor.services.config, actor.realm),
    users: mentionableUsers(actor, sender, refs.userNames, refs.userIds),
    userGroups: mentionableGroups(actor, refs.groupNames),
    channels: linkableChannels(actor, sender, refs.channelNames, refs.topics),
    linkifiers: renderLinkifiers(actor),
    realmEmoji: renderRealmEmoji(actor, content),
    translateEmoticons: sender?.settings.translate_emoticons === true,
    defaultCodeBlockLanguage: typeof codeLanguage === 'string' && codeLanguage !== '' ? codeLanguage : null,
    emptyTopicDisplayName: EMPTY_TOPIC_DISPLAY_NAME,
  };
}

const toRendered = (r: RenderResult): RenderedContent => ({
  html: r.html,
  mentionedUserIds: r.mentionedUserIds,
  silentlyMentionedUserIds: r.silentlyMentionedUserIds,
  mentionedGroupIds: r.mentionedGroupIds,
  wildcards: r.wildcards,
  isMeMessage: r.isMeMessage,
  links: r.links,
  hasImage: r.hasImage,
  hasLink: r.hasLink,
});

/** A render that ran out of time is refused, so that nothing half-rendered is stored. */
function rethrow(err: unknown): never {
  if (err instanceof RenderTimeoutError) throw renderTimedOut();
  throw err;
}

export async function renderContent(actor: RealmActor, content: string, opts: RenderOptions = {}): Promise<RenderedContent> {
  const ctx = renderContextFor(actor, content, opts);
  try {
    return toRendered(await actor.services.render.render(content, ctx));
  } catch (err) {
    rethrow(err);
  }
}

/**
 * Several renders at once (they share worker tasks). Fails as a whole with the timeout error
 * if any one of them runs out of time; callers that must keep the others render one by one.
 */
export async function renderMany(
  actor: RealmActor,
  items: Array<{ content: string } & RenderOptions>,
): Promise<RenderedContent[]> {
  const work = items.map((item) => ({ content: item.content, ctx: renderContextFor(actor, item.content, item) }));
  try {
    return (await actor.services.render.renderMany(work)).map(toRendered);
  } catch (err) {
    rethrow(err);
  }
}

/**
 * Zulip's check on group mentions: a sender may notify a group (non-silent `@*group*`) only if
 * they are in its can_mention_group; deactivated groups cannot be mentioned at all.
 */
export function checkGroupMentions(actor: RealmActor, sender: User, rendered: Pick<RenderedContent, 'mentionedGroupIds'>): void {
  for (const id of rendered.mentionedGroupIds) {
    const group = actor.state.groups.get(id);
    if (!group) continue;
    // Unset means Zulip's default, role:everyone.
    const setting = group.settings.can_mention_group as GroupSettingValue | undefined;
    const allowed = !group.deactivated && (setting === undefined || userInGroupSetting(actor.state, sender, setting));
    if (!allowed) throw new ApiError('BAD_REQUEST', `You are not allowed to mention user group '${group.name}'.`, 400);
  }
}
