// Cheap scans over raw message content: which names a message refers to (so a
// caller can send the renderer a small context), and which alert words occur.

import { STREAM_WILDCARDS, TOPIC_WILDCARD } from './mentions.js';
import type { ContentReferences, RenderContext } from './types.js';

const USER_MENTION_RE = /@_?\*\*([^*]+)\*\*/g;
const GROUP_MENTION_RE = /@_?\*([^*]+)\*/g;
const CHANNEL_LINK_RE = /#\*\*([^*]+)\*\*/g;
const EMOJI_RE = /:([\w+-]+):/gu;
const ID_SYNTAX = /^(.*)\|(\d+)$/s;

/** Names and ids a message may refer to. Over-inclusive (code spans count). */
export function scanContent(content: string): ContentReferences {
  const userNames = new Set<string>();
  const userIds = new Set<number>();
  const groupNames = new Set<string>();
  const channelNames = new Set<string>();
  const topics = new Map<string, [string, string]>();
  const emojiNames = new Set<string>();
  let mayHaveWildcard = false;

  for (const m of content.matchAll(USER_MENTION_RE)) {
    const text = m[1];
    if (STREAM_WILDCARDS.has(text) || text === TOPIC_WILDCARD) {
      mayHaveWildcard = true;
      continue;
    }
    const id = ID_SYNTAX.exec(text);
    if (id) {
      userIds.add(Number(id[2]));
      if (id[1]) userNames.add(id[1].toLowerCase());
    } else {
      userNames.add(text.toLowerCase());
    }
  }
  for (const m of content.matchAll(GROUP_MENTION_RE)) groupNames.add(m[1].toLowerCase());
  for (const m of content.matchAll(CHANNEL_LINK_RE)) {
    const inner = m[1];
    const sep = inner.indexOf('>');
    if (sep === -1) {
      channelNames.add(inner);
      continue;
    }
    const channel = inner.slice(0, sep);
    const topic = inner.slice(sep + 1).replace(/@\d+$/, '');
    channelNames.add(channel);
    topics.set(`${channel}\u0000${topic}`, [channel, topic]);
  }
  for (const m of content.matchAll(EMOJI_RE)) emojiNames.add(m[1]);

  return {
    userNames: [...userNames],
    userIds: [...userIds],
    groupNames: [...groupNames],
    channelNames: [...channelNames],
    topics: [...topics.values()],
    emojiNames: [...emojiNames],
    mayHaveWildcard,
  };
}

/**
 * Narrow a full realm context to what `content` refers to, so only that much
 * crosses the worker boundary. Linkifiers and settings are kept as they are.
 */
export function contextForContent(full: RenderContext, content: string): RenderContext {
  const refs = scanContent(content);
  const names = new Set(refs.userNames);
  const ids = new Set(refs.userIds);
  const groups = new Set(refs.groupNames);
  const channels = new Set(refs.channelNames.map((n) => n.toLowerCase()));
  const emoji = new Set(refs.emojiNames);
  return {
    ...full,
    users: full.users?.filter((u) => ids.has(u.id) || names.has(u.full_name.toLowerCase())),
    userGroups: full.userGroups?.filter((g) => groups.has(g.name.toLowerCase())),
    channels: full.channels?.filter((c) => channels.has(c.name.toLowerCase())),
    realmEmoji: full.realmEmoji?.filter((e) => emoji.has(e.name)),
  };
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const BEFORE = `(?:^|\\s|[(".,';[*\`>])`;
const AFTER = `(?:$|\\s|[)"?:.,';\\]!*\`])`;

/**
 * Alert words present in a message, matched case-insensitively as whole words
 * (bounded by whitespace or punctuation, as Zulip does).
 */
export function findAlertWords(contentText: string, words: string[]): string[] {
  const text = contentText.toLowerCase();
  const found: string[] = [];
  for (const word of words) {
    const w = word.trim().toLowerCase();
    if (!w || found.includes(word)) continue;
    if (!text.includes(w)) continue;
    if (new RegExp(`${BEFORE}${escapeRe(w)}${AFTER}`, 'u').test(text)) found.push(word);
  }
  return found;
}
