// Plain, structured-clone friendly data passed to the renderer. Everything here
// may cross a worker_threads boundary, so no Maps, class instances or functions.

export interface RenderUser {
  id: number;
  full_name: string;
  is_active: boolean;
}

export interface RenderUserGroup {
  id: number;
  name: string;
  is_system_group: boolean;
  description: string;
  /** Deactivated groups render as silent mentions and notify nobody. */
  deactivated?: boolean;
}

export interface RenderChannel {
  id: number;
  name: string;
  /**
   * Latest message id per topic, keyed by the lowercased topic name. Topic links
   * (`#**channel>topic**`) get a `/with/<id>` suffix when the topic is listed.
   */
  topicLatestMessageIds?: Record<string, number>;
}

export interface RenderRealmEmoji {
  id: string | number;
  name: string;
  source_url: string;
  deactivated: boolean;
}

export interface RenderLinkifier {
  id: number;
  /** Python-flavoured regular expression, as stored by the realm. */
  pattern: string;
  /** RFC 6570 URL template whose variables are the pattern's named groups. */
  url_template: string;
}

export interface RenderContext {
  /** e.g. "https://chat.example.com"; reserved for local-link handling. */
  realmUrl: string;
  /** Users that may be mentioned. Only the ones the content names are needed. */
  users?: RenderUser[];
  userGroups?: RenderUserGroup[];
  /** Channels the sender may link to (callers leave out ones the sender cannot see). */
  channels?: RenderChannel[];
  realmEmoji?: RenderRealmEmoji[];
  /** Realm linkifiers in the realm's order (earlier ones win). */
  linkifiers?: RenderLinkifier[];
  /** The sender's `translate_emoticons` setting. */
  translateEmoticons?: boolean;
  /** Realm `default_code_block_language`; applies to fences without a language. */
  defaultCodeBlockLanguage?: string | null;
  /** Display name of the empty topic in topic links; default "general chat". */
  emptyTopicDisplayName?: string;
}

export interface RenderResult {
  html: string;
  /** Users mentioned non-silently (they get the `mentioned` flag). */
  mentionedUserIds: number[];
  /** Users mentioned silently (`@_**Name**`, quoted mentions, inactive users). */
  silentlyMentionedUserIds: number[];
  /** Groups mentioned non-silently. */
  mentionedGroupIds: number[];
  wildcards: { stream: boolean; topic: boolean };
  /** URLs of links in the message (Markdown links, bare URLs, linkifier links). */
  links: string[];
  isMeMessage: boolean;
  hasImage: boolean;
  hasLink: boolean;
}

/** What a message refers to by name; see `scanContent`. */
export interface ContentReferences {
  /** Lowercased full names used in `@**Name**` / `@_**Name**`. */
  userNames: string[];
  /** Ids used in `@**Name|id**`. */
  userIds: number[];
  /** Lowercased group names used in `@*group*` / `@_*group*`. */
  groupNames: string[];
  /** Channel names used in `#**channel**`, `#**channel>topic**`, ... */
  channelNames: string[];
  /** Topic links as [channel name, topic name]. */
  topics: Array<[string, string]>;
  /** Names used as `:name:` (custom emoji candidates). */
  emojiNames: string[];
  /** Whether a wildcard mention may be present. */
  mayHaveWildcard: boolean;
}
