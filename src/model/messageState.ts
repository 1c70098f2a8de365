// What a realm actor keeps in memory about messages: conversations (a channel, or a set of
// direct-message participants), who shares a direct conversation that has a message (limited
// guests see those users), the topics of each channel with their latest message id,
// users' topic visibility policies, and message ids reserved for the next sends. Message
// contents stay in the database.

/** A channel's conversation, or a direct conversation (participants sorted, sender included). */
export interface Conversation {
  id: number;
  streamId: number | null;
  userIds: number[] | null;
}

export interface TopicInfo {
  /** The spelling of the topic's latest message. */
  name: string;
  maxId: number;
}

export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export interface UserTopic {
  userId: number;
  streamId: number;
  topicName: string;
  visibilityPolicy: number;
  /** UNIX seconds. */
  lastUpdated: number;
}

export interface EditHistoryEntry {
  user_id: number | null;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_rendered_content_version?: number;
  prev_stream?: number;
  stream?: number;
  prev_topic?: string;
  topic?: string;
}

/** One message row. */
export interface MessageRecord {
  id: number;
  realmId: number;
  senderId: number;
  recipientId: number;
  streamId: number | null;
  topic: string;
  content: string;
  renderedContent: string;
  dateSent: Date;
  lastEditTime: Date | null;
  lastMovedTime: Date | null;
  editHistory: EditHistoryEntry[] | null;
  isMeMessage: boolean;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
  client: string;
  recipientsListed: boolean;
  mentionsStreamWildcard: boolean;
}

export const directKey = (userIds: number[]) => userIds.join(',');
const topicKey = (streamId: number, topic: string) => `${streamId}\n${topic.toLowerCase()}`;

export class MessageState {
  readonly conversations = new Map<number, Conversation>();
  private readonly byStream = new Map<number, Conversation>();
  private readonly byUsers = new Map<string, Conversation>();
  private readonly directByUser = new Map<number, Set<number>>();
  /** Direct conversations that have a message (a conversation is made just before its first one). */
  private readonly directWithMessages = new Set<number>();
  /** user id → the users it shares a direct conversation with that has a message. */
  private readonly directPartners = new Map<number, Set<number>>();
  /** stream id → lowercased topic → latest spelling and max message id. */
  readonly topics = new Map<number, Map<string, TopicInfo>>();
  private readonly userTopics = new Map<number, Map<string, UserTopic>>();
  /** Ids drawn from the message id sequence and not handed out yet, ascending. */
  reservedIds: number[] = [];
  /**
   * Highest message id whose message event went out. Sends are committed and announced after
   * the actor handed them to the send queue, so a snapshot (POST /register) that must not
   * overlap the events a new queue will get stops here.
   */
  publishedUpTo = 0;

  putConversation(c: Conversation): void {
    this.conversations.set(c.id, c);
    if (c.streamId !== null) this.byStream.set(c.streamId, c);
    if (c.userIds) {
      this.byUsers.set(directKey(c.userIds), c);
      for (const u of c.userIds) {
        let set = this.directByUser.get(u);
        if (!set) this.directByUser.set(u, (set = new Set()));
        set.add(c.id);
      }
    }
  }

  streamConversation(streamId: number): Conversation | undefined {
    return this.byStream.get(streamId);
  }

  /** The direct conversation of exactly these participants (sorted ids). */
  directConversation(userIds: number[]): Conversation | undefined {
    return this.byUsers.get(directKey(userIds));
  }

  /** Ids of the direct conversations a user takes part in. */
  directConversationsOf(userId: number): number[] {
    return [...(this.directByUser.get(userId) ?? [])];
  }

  /**
   * Records that a direct conversation has a message; false when that was known. Its
   * participants are each other's direct-message partners from then on: deleting its messages
   * takes nobody out of anyone's sight (Zulip's direct-message group subscriptions stay too);
   * only the next load, which counts conversations with messages, would forget it.
   */
  noteDirectMessage(c: Conversation): boolean {
    if (!c.userIds || this.directWithMessages.has(c.id)) return false;
    this.directWithMessages.add(c.id);
    for (const a of c.userIds) {
      let partners = this.directPartners.get(a);
      if (!partners) this.directPartners.set(a, (partners = new Set()));
      for (const b of c.userIds) if (b !== a) partners.add(b);
    }
    return true;
  }

  /** Whether a direct conversation is known to have a message. */
  hasDirectMessages(conversationId: number): boolean {
    return this.directWithMessages.has(conversationId);
  }

  /** Whether two users take part in a direct conversation (1:1 or group) that has a message. */
  areDirectPartners(a: number, b: number): boolean {
    return this.directPartners.get(a)?.has(b) === true;
  }

  topic(streamId: number, topic: string): TopicInfo | undefined {
    return this.topics.get(streamId)?.get(topic.toLowerCase());
  }

  /** Records a message in a topic (the newest one wins the spelling). */
  noteTopicMessage(streamId: number, topic: string, messageId: number): void {
    let byName = this.topics.get(streamId);
    if (!byName) this.topics.set(streamId, (byName = new Map()));
    const key = topic.toLowerCase();
    const cur = byName.get(key);
    if (!cur || cur.maxId <= messageId) byName.set(key, { name: topic, maxId: messageId });
  }

  /** Replaces what is known of a topic after messages left it (null: the topic is empty). */
  setTopic(streamId: number, topic: string, info: TopicInfo | null): void {
    const key = topic.toLowerCase();
    if (info) {
      let byName = this.topics.get(streamId);
      if (!byName) this.topics.set(streamId, (byName = new Map()));
      byName.set(key, info);
    } else {
      this.topics.get(streamId)?.delete(key);
    }
  }

  userTopic(userId: number, streamId: number, topic: string): UserTopic | undefined {
    return this.userTopics.get(userId)?.get(topicKey(streamId, topic));
  }

  userTopicsOf(userId: number): UserTopic[] {
    return [...(this.userTopics.get(userId)?.values() ?? [])];
  }

  /** Sets a policy; INHERIT removes the entry. */
  putUserTopic(t: UserTopic): void {
    const key = topicKey(t.streamId, t.topicName);
    if (t.visibilityPolicy === VisibilityPolicy.INHERIT) {
      this.userTopics.get(t.userId)?.delete(key);
      return;
    }
    let byKey = this.userTopics.get(t.userId);
    if (!byKey) this.userTopics.set(t.userId, (byKey = new Map()));
    byKey.set(key, t);
  }
}
