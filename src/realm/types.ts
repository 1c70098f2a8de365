// The in-memory model of a realm. Plain data; the actor owns it and is its only writer.

export const Role = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];
export const ROLES: readonly number[] = Object.values(Role);

export const EmailVisibility = { EVERYONE: 1, MEMBERS: 2, ADMINS: 3, NOBODY: 4, MODERATORS: 5 } as const;

export interface UserSettings {
  email_address_visibility: number;
  [key: string]: unknown;
}

export interface User {
  id: number;
  realmId: number;
  deliveryEmail: string;
  fullName: string;
  passwordHash: string | null;
  apiKey: string;
  role: number;
  isActive: boolean;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  timezone: string;
  dateJoined: Date;
  avatarSource: string;
  avatarVersion: number;
  canCreateUsers: boolean;
  settings: UserSettings;
}

export interface RealmSettings {
  enable_spectator_access: boolean;
  waiting_period_threshold: number;
  [key: string]: unknown;
}

export interface RealmRecord {
  id: number;
  stringId: string;
  name: string;
  description: string;
  dateCreated: Date;
  deactivated: boolean;
  settings: RealmSettings;
}

export const DEFAULT_REALM_SETTINGS: RealmSettings = {
  enable_spectator_access: false,
  waiting_period_threshold: 0,
};

export const DEFAULT_USER_SETTINGS: UserSettings = {
  email_address_visibility: EmailVisibility.EVERYONE,
};

export interface UserGroup {
  id: number;
  name: string;
  description: string;
  isSystemGroup: boolean;
  deactivated: boolean;
  dateCreated: Date | null;
  creatorId: number | null;
  /** Permission settings of the group itself (can_manage_group, …) as group-setting values. */
  settings: Record<string, unknown>;
  members: Set<number>;
  subgroups: Set<number>;
}

/** A channel. Permission settings are group-setting values keyed by setting name. */
export interface Stream {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  dateCreated: Date;
  creatorId: number | null;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isArchived: boolean;
  isDefault: boolean;
  /** null: the realm default; -1: keep forever. */
  messageRetentionDays: number | null;
  folderId: number | null;
  topicsPolicy: 'inherit' | 'allow_empty_topic' | 'disable_empty_topic' | 'empty_topic_only';
  settings: Record<string, unknown>;
}

/** One user's subscription to one channel; `active` false once they left. */
export interface Subscription {
  userId: number;
  streamId: number;
  active: boolean;
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
  desktopNotifications: boolean | null;
  audibleNotifications: boolean | null;
  pushNotifications: boolean | null;
  emailNotifications: boolean | null;
  wildcardMentionsNotify: boolean | null;
}
