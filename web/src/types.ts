// The API objects the client uses (the fields it reads), as the server sends them.
export interface User {
  user_id: number;
  email: string;
  full_name: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  is_admin?: boolean;
  is_owner?: boolean;
  timezone?: string;
}

export interface Channel {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_web_public?: boolean;
  is_archived?: boolean;
}

export interface Subscription extends Channel {
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
}

export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

export interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  type: 'stream' | 'private';
  stream_id?: number;
  subject: string;
  display_recipient: string | { id: number; email: string; full_name: string }[];
  content: string;
  timestamp: number;
  reactions: Reaction[];
  flags: string[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
}

export interface NarrowTerm {
  operator: string;
  operand: string;
  negated?: boolean;
}

export interface RealmEmoji {
  id: string;
  name: string;
  source_url: string;
  deactivated: boolean;
}

export interface Presence {
  active_timestamp: number;
  idle_timestamp: number;
}

/** Zulip's roles. */
export const Role = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 } as const;
export const ROLE_NAMES: Record<number, string> = { 100: 'Owner', 200: 'Administrator', 300: 'Moderator', 400: 'Member', 600: 'Guest' };
