// Lookup tables built from a RenderContext for one render, and the mutable
// state a render accumulates (mentions, links, stashed HTML).

import { compileLinkifier, type CompiledLinkifier } from './linkifiers.js';
import type {
  RenderChannel,
  RenderContext,
  RenderRealmEmoji,
  RenderUser,
  RenderUserGroup,
} from './types.js';

export interface ContextIndex {
  usersByName: Map<string, RenderUser | null>;
  usersById: Map<number, RenderUser>;
  groupsByName: Map<string, RenderUserGroup>;
  channelsByName: Map<string, RenderChannel>;
  channelsByLowerName: Map<string, RenderChannel | null>;
  realmEmoji: Map<string, RenderRealmEmoji>;
  linkifiers: CompiledLinkifier[];
  translateEmoticons: boolean;
  defaultCodeBlockLanguage: string;
  emptyTopicDisplayName: string;
}

export function buildIndex(ctx: RenderContext): ContextIndex {
  const usersByName = new Map<string, RenderUser | null>();
  const usersById = new Map<number, RenderUser>();
  for (const user of ctx.users ?? []) {
    usersById.set(user.id, user);
    const key = user.full_name.toLowerCase();
    // Two users with the same name: `@**Name**` is ambiguous and needs `|id`.
    usersByName.set(key, usersByName.has(key) ? null : user);
  }
  const groupsByName = new Map<string, RenderUserGroup>();
  for (const group of ctx.userGroups ?? []) groupsByName.set(group.name.toLowerCase(), group);
  const channelsByName = new Map<string, RenderChannel>();
  const channelsByLowerName = new Map<string, RenderChannel | null>();
  for (const channel of ctx.channels ?? []) {
    channelsByName.set(channel.name, channel);
    const key = channel.name.toLowerCase();
    channelsByLowerName.set(key, channelsByLowerName.has(key) ? null : channel);
  }
  const realmEmoji = new Map<string, RenderRealmEmoji>();
  for (const emoji of ctx.realmEmoji ?? []) if (!emoji.deactivated) realmEmoji.set(emoji.name, emoji);
  const linkifiers: CompiledLinkifier[] = [];
  for (const linkifier of ctx.linkifiers ?? []) {
    const compiled = compileLinkifier(linkifier);
    if (compiled) linkifiers.push(compiled);
  }
  return {
    usersByName,
    usersById,
    groupsByName,
    channelsByName,
    channelsByLowerName,
    realmEmoji,
    linkifiers,
    translateEmoticons: ctx.translateEmoticons ?? false,
    defaultCodeBlockLanguage: ctx.defaultCodeBlockLanguage ?? '',
    emptyTopicDisplayName: ctx.emptyTopicDisplayName ?? 'general chat',
  };
}

export function findChannel(index: ContextIndex, name: string): RenderChannel | undefined {
  return index.channelsByName.get(name) ?? index.channelsByLowerName.get(name.toLowerCase()) ?? undefined;
}

export interface StashEntry {
  html: string;
  kind: 'block' | 'spoiler-open' | 'spoiler-middle' | 'spoiler-close';
}

export interface RenderState {
  index: ContextIndex;
  stash: StashEntry[];
  mentioned: Set<number>;
  silentlyMentioned: Set<number>;
  mentionedGroups: Set<number>;
  wildcards: { stream: boolean; topic: boolean };
  links: string[];
  previewedUrls: Set<string>;
  hasImage: boolean;
  /** Nesting of blockquote/list tokenizing, bounded to keep recursion shallow. */
  nesting: number;
}

export function newState(ctx: RenderContext): RenderState {
  return {
    index: buildIndex(ctx),
    stash: [],
    mentioned: new Set(),
    silentlyMentioned: new Set(),
    mentionedGroups: new Set(),
    wildcards: { stream: false, topic: false },
    links: [],
    previewedUrls: new Set(),
    hasImage: false,
    nesting: 0,
  };
}

export function stashHtml(state: RenderState, html: string, kind: StashEntry['kind'] = 'block'): string {
  state.stash.push({ html, kind });
  return `\u0002${state.stash.length - 1}\u0003`;
}
