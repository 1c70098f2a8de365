// Resolution and HTML of user, wildcard and group mentions and of channel,
// topic and message links.

import { quoteAll } from './autolink.js';
import { findChannel, type RenderState } from './context.js';
import { escapeAttr, escapeText } from './escape.js';
import type { RenderChannel, RenderUserGroup } from './types.js';

export const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
export const TOPIC_WILDCARD = 'topic';

export type MentionTarget =
  | { kind: 'user'; id: number; name: string; active: boolean }
  | { kind: 'stream-wildcard'; name: string }
  | { kind: 'topic-wildcard' };

const ID_SYNTAX = /^(?<name>.+)?\|(?<id>\d+)$/s;

/** What `@**text**` refers to, or null when it names nobody (left as text). */
export function resolveUserMention(state: RenderState, text: string): MentionTarget | null {
  if (text === TOPIC_WILDCARD) return { kind: 'topic-wildcard' };
  if (STREAM_WILDCARDS.has(text)) return { kind: 'stream-wildcard', name: text };
  const idMatch = ID_SYNTAX.exec(text);
  const index = state.index;
  if (idMatch) {
    const user = index.usersById.get(Number(idMatch.groups!.id));
    // `@**Name|id**` must name the user with that id.
    if (!user || (idMatch.groups!.name !== undefined && idMatch.groups!.name !== user.full_name)) return null;
    return { kind: 'user', id: user.id, name: user.full_name, active: user.is_active };
  }
  const user = index.usersByName.get(text.toLowerCase());
  if (!user) return null;
  return { kind: 'user', id: user.id, name: user.full_name, active: user.is_active };
}

/** Mention HTML; records who was mentioned. `silent` already accounts for quotes. */
export function userMentionHtml(state: RenderState, target: MentionTarget, requestedSilent: boolean): string {
  if (target.kind === 'topic-wildcard') {
    if (!requestedSilent) state.wildcards.topic = true;
    return requestedSilent ? '<span class="topic-mention silent">topic</span>' : '<span class="topic-mention">@topic</span>';
  }
  if (target.kind === 'stream-wildcard') {
    if (!requestedSilent) state.wildcards.stream = true;
    const name = escapeText(target.name);
    return requestedSilent
      ? `<span class="user-mention channel-wildcard-mention silent" data-user-id="*">${name}</span>`
      : `<span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span>`;
  }
  // Mentioning a deactivated user never notifies them.
  const silent = requestedSilent || !target.active;
  if (silent) state.silentlyMentioned.add(target.id);
  else state.mentioned.add(target.id);
  const name = escapeText(target.name);
  return silent
    ? `<span class="user-mention silent" data-user-id="${target.id}">${name}</span>`
    : `<span class="user-mention" data-user-id="${target.id}">@${name}</span>`;
}

export function groupMentionHtml(state: RenderState, group: RenderUserGroup, requestedSilent: boolean): string {
  // System groups are only mentioned silently; they show their description.
  const silent = requestedSilent || group.is_system_group || Boolean(group.deactivated);
  const name = escapeText(group.is_system_group && group.description ? group.description : group.name);
  if (!silent) state.mentionedGroups.add(group.id);
  return silent
    ? `<span class="user-group-mention silent" data-user-group-id="${group.id}">${name}</span>`
    : `<span class="user-group-mention" data-user-group-id="${group.id}">@${name}</span>`;
}

/** Zulip's `encode_hash_component` for narrow URLs. */
export function encodeHashComponent(s: string): string {
  return quoteAll(s).replace(/\./g, '%2E').replace(/%/g, '.');
}

function channelUrlPart(channel: RenderChannel): string {
  return `${channel.id}-${encodeHashComponent(channel.name.replace(/ /g, '-'))}`;
}

export function lookupChannel(state: RenderState, name: string): RenderChannel | undefined {
  return findChannel(state.index, name);
}

export function channelLinkHtml(channel: RenderChannel): string {
  const href = `/#narrow/channel/${channelUrlPart(channel)}`;
  return `<a class="stream" data-stream-id="${channel.id}" href="${escapeAttr(href)}">#${escapeText(channel.name)}</a>`;
}

function topicLabel(state: RenderState, channel: RenderChannel, topic: string): string {
  if (topic === '') return `#${escapeText(channel.name)} &gt; <em>${escapeText(state.index.emptyTopicDisplayName)}</em>`;
  return `#${escapeText(channel.name)} &gt; ${escapeText(topic)}`;
}

export function topicLinkHtml(state: RenderState, channel: RenderChannel, topic: string): string {
  let href = `/#narrow/channel/${channelUrlPart(channel)}/topic/${encodeHashComponent(topic)}`;
  const latest = channel.topicLatestMessageIds?.[topic.toLowerCase()];
  if (latest !== undefined) href += `/with/${latest}`;
  return `<a class="stream-topic" data-stream-id="${channel.id}" href="${escapeAttr(href)}">${topicLabel(state, channel, topic)}</a>`;
}

export function messageLinkHtml(state: RenderState, channel: RenderChannel, topic: string, messageId: string): string {
  const href = `/#narrow/channel/${channelUrlPart(channel)}/topic/${encodeHashComponent(topic)}/near/${messageId}`;
  return `<a class="message-link" href="${escapeAttr(href)}">${topicLabel(state, channel, topic)} @ 💬</a>`;
}
