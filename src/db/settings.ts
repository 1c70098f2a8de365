// Writes of a user's own account settings: personal settings, name, time zone, password.
import type { Sql } from './connect.js';

/** Merges changed settings into the user's settings document. */
export async function updateUserSettings(sql: Sql, userId: number, changes: Record<string, unknown>): Promise<void> {
  await sql`UPDATE users SET settings = settings || ${sql.json(changes as never)} WHERE id = ${userId}`;
}

export async function updateFullName(sql: Sql, userId: number, fullName: string): Promise<void> {
  await sql`UPDATE users SET full_name = ${fullName} WHERE id = ${userId}`;
}

export async function updateTimezone(sql: Sql, userId: number, timezone: string): Promise<void> {
  await sql`UPDATE users SET timezone = ${timezone} WHERE id = ${userId}`;
}

export async function updatePasswordHash(sql: Sql, userId: number, passwordHash: string): Promise<void> {
  await sql`UPDATE users SET password_hash = ${passwordHash} WHERE id = ${userId}`;
}
