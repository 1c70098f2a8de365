// Queries on users.
import type { Sql } from './connect.js';
import { DEFAULT_USER_SETTINGS, type User, type UserSettings } from '../model/types.js';

interface UserRow {
  id: number;
  realm_id: number;
  delivery_email: string;
  full_name: string;
  password_hash: string | null;
  api_key: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  timezone: string;
  date_joined: Date;
  avatar_source: string;
  avatar_version: number;
  can_create_users: boolean;
  settings: Partial<UserSettings>;
}

const toUser = (r: UserRow): User => ({
  id: r.id,
  realmId: r.realm_id,
  deliveryEmail: r.delivery_email,
  fullName: r.full_name,
  passwordHash: r.password_hash,
  apiKey: r.api_key,
  role: r.role,
  isActive: r.is_active,
  isBot: r.is_bot,
  botType: r.bot_type,
  botOwnerId: r.bot_owner_id,
  timezone: r.timezone,
  dateJoined: r.date_joined,
  avatarSource: r.avatar_source,
  avatarVersion: r.avatar_version,
  canCreateUsers: r.can_create_users,
  settings: { ...DEFAULT_USER_SETTINGS, ...r.settings },
});

export async function loadRealmUsers(sql: Sql, realmId: number): Promise<User[]> {
  const rows = await sql<UserRow[]>`SELECT * FROM users WHERE realm_id = ${realmId} ORDER BY id`;
  return rows.map(toUser);
}

export async function loadUser(sql: Sql, realmId: number, userId: number): Promise<User | null> {
  const rows = await sql<UserRow[]>`SELECT * FROM users WHERE realm_id = ${realmId} AND id = ${userId}`;
  return rows[0] ? toUser(rows[0]) : null;
}

export interface NewUser {
  realmId: number;
  deliveryEmail: string;
  fullName: string;
  passwordHash: string | null;
  apiKey: string;
  role: number;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  timezone?: string;
  canCreateUsers?: boolean;
  settings?: Partial<UserSettings>;
}

export async function insertUser(sql: Sql, u: NewUser): Promise<User> {
  const rows = await sql<UserRow[]>`
    INSERT INTO users (realm_id, delivery_email, full_name, password_hash, api_key, role,
                       is_bot, bot_type, bot_owner_id, timezone, can_create_users, settings)
    VALUES (${u.realmId}, ${u.deliveryEmail}, ${u.fullName}, ${u.passwordHash}, ${u.apiKey}, ${u.role},
            ${u.isBot ?? false}, ${u.botType ?? null}, ${u.botOwnerId ?? null}, ${u.timezone ?? ''},
            ${u.canCreateUsers ?? false}, ${sql.json((u.settings ?? {}) as never)})
    RETURNING *`;
  return toUser(rows[0]!);
}

export async function emailTaken(sql: Sql, realmId: number, email: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM users WHERE realm_id = ${realmId} AND lower(delivery_email) = ${email.toLowerCase()}`;
  return rows.length > 0;
}

/** The id of the user with this real email in the realm (case-insensitive), if any. */
export async function findUserIdByEmail(sql: Sql, realmId: number, email: string): Promise<number | null> {
  const rows = await sql<{ id: number }[]>`
    SELECT id FROM users WHERE realm_id = ${realmId} AND lower(delivery_email) = ${email.toLowerCase()}`;
  return rows[0]?.id ?? null;
}

/** The addresses among `emails` already used in the realm (lower-cased). */
export async function takenEmails(sql: Sql, realmId: number, emails: string[]): Promise<Set<string>> {
  const lower = emails.map((e) => e.toLowerCase());
  const rows = await sql<{ email: string }[]>`
    SELECT lower(delivery_email) AS email FROM users WHERE realm_id = ${realmId} AND lower(delivery_email) = ANY(${lower})`;
  return new Set(rows.map((r) => r.email));
}

export interface InsertedUser {
  id: number;
  delivery_email: string;
  api_key: string;
}

/** One multi-row INSERT for many users (no password hashing happens here). */
export async function insertUsers(sql: Sql, users: NewUser[]): Promise<InsertedUser[]> {
  const rows = users.map((u) => ({
    realm_id: u.realmId,
    delivery_email: u.deliveryEmail,
    full_name: u.fullName,
    password_hash: u.passwordHash,
    api_key: u.apiKey,
    role: u.role,
    is_bot: u.isBot ?? false,
    bot_type: u.botType ?? null,
    bot_owner_id: u.botOwnerId ?? null,
    timezone: u.timezone ?? '',
    can_create_users: u.canCreateUsers ?? false,
    settings: sql.json((u.settings ?? {}) as never),
  }));
  return sql<InsertedUser[]>`INSERT INTO users ${sql(rows as never)} RETURNING id, delivery_email, api_key`;
}

/** Writes a user's avatar source ('G' Gravatar, 'U' uploaded) and version. */
export async function saveAvatar(sql: Sql, u: { id: number; realmId: number; avatarSource: string; avatarVersion: number }): Promise<void> {
  await sql`UPDATE users SET avatar_source = ${u.avatarSource}, avatar_version = ${u.avatarVersion} WHERE id = ${u.id} AND realm_id = ${u.realmId}`;
}
