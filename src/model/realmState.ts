// RealmState: the realm's data held in memory, with the indexes requests need.
import { createHash } from 'node:crypto';
import type { RealmRecord, Stream, Subscription, User, UserGroup } from './types.js';
import type { BotService, BotSettings, ChannelFolder, CustomProfileField, MultiuseInvite, EmailInvite, ProfileFieldValue } from './types.js';
import { MessageState } from './messageState.js';
import type { UserPresence, UserStatus } from './types.js';
import type { CodePlayground, Linkifier, RealmEmoji } from './types.js';

export const apiKeyDigest = (key: string) => createHash('sha256').update(key).digest('hex');

/** Puts of users remembered by id (see RealmState.usersPutSince). */
const USER_LOG_LIMIT = 1024;

export class RealmState {
  readonly users = new Map<number, User>();
  private readonly byEmail = new Map<string, User>();
  private readonly byKeyDigest = new Map<string, User>();
  readonly groups = new Map<number, UserGroup>();
  readonly streams = new Map<number, Stream>();
  private readonly streamsByName = new Map<string, Stream>();
  /** stream id → user id → subscription (active or not). */
  readonly subsByStream = new Map<number, Map<number, Subscription>>();
  /** user id → stream id → subscription (active or not). */
  readonly subsByUser = new Map<number, Map<number, Subscription>>();
  /** The realm's highest message id (0: none yet); subscription history records it. */
  maxMessageId = 0;
  /** Conversations, topics, topic visibility policies (see messageState.ts). */
  readonly messaging = new MessageState();
  /** Organization administration: folders, profile fields and values, invitation links, bots. */
  readonly channelFolders = new Map<number, ChannelFolder>();
  readonly profileFields = new Map<number, CustomProfileField>();
  /** user id → field id → value. Changed only through the methods below (profileVersion). */
  readonly profileValues = new Map<number, Map<number, ProfileFieldValue>>();
  readonly multiuseInvites = new Map<number, MultiuseInvite>();
  /** Email invitations still pending (neither used nor revoked), by id. */
  readonly emailInvites = new Map<number, EmailInvite>();
  readonly botSettings = new Map<number, BotSettings>();
  /** Outgoing webhook bots' services, by bot id. */
  readonly botServices = new Map<number, BotService>();
  /** Event features: user id → alert words (persisted); user id → presence (memory only). */
  readonly alertWords = new Map<number, string[]>();
  readonly presence = new Map<number, UserPresence>();
  /** user id → muted user id → when muted (seconds since the epoch); persisted. */
  readonly mutedUsers = new Map<number, Map<number, number>>();
  /** user id → status text and emoji (persisted; users who never set a status are absent). */
  readonly userStatus = new Map<number, UserStatus>();
  /** The realm-wide presence sequence; every presence change takes the next number. */
  presenceLastUpdateId = 0;
  /**
   * Linkifiers in the realm's order (earlier ones win). Replaced as a whole on every change,
   * so whatever is derived from one array (compiled topic links) stays valid for it.
   */
  linkifiers: readonly Linkifier[] = [];
  readonly playgrounds = new Map<number, CodePlayground>();
  /** Custom emoji by id, deactivated ones included (old reactions still name them). */
  readonly realmEmoji = new Map<number, RealmEmoji>();

  constructor(public realm: RealmRecord) {}

  userByEmail(email: string): User | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  /** Looks a user up by the digest of an API key; the caller compares the key itself. */
  userByApiKey(key: string): User | undefined {
    return this.byKeyDigest.get(apiKeyDigest(key));
  }

  /** Bumped on every putUser: views derived from all users (channel settings) key on it. */
  usersVersion = 0;

  /**
   * The ids of the users put since usersVersion was `userLogBase`, one per putUser in order,
   * so that a view of all users can be brought up to date instead of made again (register's
   * user lists). Only the last USER_LOG_LIMIT puts are kept.
   */
  private userLog: number[] = [];
  private userLogBase = 0;

  /** The ids of the users put since usersVersion was `version`, or null when that is too long ago. */
  usersPutSince(version: number): number[] | null {
    if (version < this.userLogBase || version > this.usersVersion) return null;
    return this.userLog.slice(version - this.userLogBase);
  }

  /** Inserts or replaces a user, keeping every index in step. */
  putUser(user: User): void {
    this.usersVersion++;
    this.userLog.push(user.id);
    if (this.userLog.length > USER_LOG_LIMIT) {
      this.userLog = [];
      this.userLogBase = this.usersVersion;
    }
    const old = this.users.get(user.id);
    if (old) {
      this.byEmail.delete(old.deliveryEmail.toLowerCase());
      this.byKeyDigest.delete(apiKeyDigest(old.apiKey));
    }
    this.users.set(user.id, user);
    this.byEmail.set(user.deliveryEmail.toLowerCase(), user);
    this.byKeyDigest.set(apiKeyDigest(user.apiKey), user);
  }

  /**
   * Bumped on every change of a custom profile field or value: views derived from every
   * user's profile data (register's user lists) key on it, with usersVersion.
   */
  profileVersion = 0;

  /** Inserts or replaces a custom profile field (its definition or order). */
  putProfileField(field: CustomProfileField): void {
    this.profileVersion++;
    this.profileFields.set(field.id, field);
  }

  /** Removes a custom profile field and every user's value of it. */
  removeProfileField(fieldId: number): void {
    this.profileVersion++;
    this.profileFields.delete(fieldId);
    for (const values of this.profileValues.values()) values.delete(fieldId);
  }

  /** Sets one user's value of a field. */
  putProfileValue(value: ProfileFieldValue): void {
    this.profileVersion++;
    let byField = this.profileValues.get(value.userId);
    if (!byField) this.profileValues.set(value.userId, (byField = new Map()));
    byField.set(value.fieldId, value);
  }

  /** Clears one user's value of a field. */
  removeProfileValue(userId: number, fieldId: number): void {
    this.profileVersion++;
    this.profileValues.get(userId)?.delete(fieldId);
  }

  groupByName(name: string): UserGroup | undefined {
    // Channel settings look system groups up by name thousands of times per register; the
    // remembered id is checked against the current object, so renames and replacements are safe.
    const id = this.groupIdByName.get(name);
    if (id !== undefined) {
      const cached = this.groups.get(id);
      if (cached?.name === name) return cached;
    }
    for (const g of this.groups.values()) {
      if (g.name === name) {
        this.groupIdByName.set(name, g.id);
        return g;
      }
    }
    return undefined;
  }
  private readonly groupIdByName = new Map<string, number>();

  streamByName(name: string): Stream | undefined {
    return this.streamsByName.get(name.toLowerCase());
  }

  /** Inserts or replaces a channel, keeping the name index in step. */
  putStream(stream: Stream): void {
    const old = this.streams.get(stream.id);
    if (old) this.streamsByName.delete(old.name.toLowerCase());
    this.streams.set(stream.id, stream);
    this.streamsByName.set(stream.name.toLowerCase(), stream);
  }

  /** Bumped on every putSubscription: counts derived from subscriptions key on it. */
  subscriptionsVersion = 0;

  putSubscription(sub: Subscription): void {
    this.subscriptionsVersion++;
    let byUser = this.subsByStream.get(sub.streamId);
    if (!byUser) this.subsByStream.set(sub.streamId, (byUser = new Map()));
    byUser.set(sub.userId, sub);
    let byStream = this.subsByUser.get(sub.userId);
    if (!byStream) this.subsByUser.set(sub.userId, (byStream = new Map()));
    byStream.set(sub.streamId, sub);
  }

  subscription(userId: number, streamId: number): Subscription | undefined {
    return this.subsByUser.get(userId)?.get(streamId);
  }

  isSubscribed(userId: number, streamId: number): boolean {
    return this.subscription(userId, streamId)?.active === true;
  }

  /** Ids of the active subscribers of a channel. */
  subscriberIds(streamId: number): number[] {
    const out: number[] = [];
    for (const sub of this.subsByStream.get(streamId)?.values() ?? []) if (sub.active) out.push(sub.userId);
    return out;
  }

  activeUsers(): User[] {
    return [...this.users.values()].filter((u) => u.isActive);
  }
}
