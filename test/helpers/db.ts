// Direct writes to the test database, for states the API cannot reach yet (a deactivated
// realm or user, another email visibility, public access). A realm actor loads its state
// from Postgres on its first request and keeps it in memory afterwards, so these writes
// must happen BEFORE the realm's first API request.
import postgres from 'postgres';
import { inject } from 'vitest';

let sql: postgres.Sql | null = null;

export function testDb(): postgres.Sql {
  sql ??= postgres(inject('databaseUrl'), { max: 2, onnotice: () => undefined });
  return sql;
}

export async function closeTestDb(): Promise<void> {
  const s = sql;
  sql = null;
  if (s) await s.end({ timeout: 5 });
}

/** Merges keys into a realm's settings (e.g. `enable_spectator_access`). */
export async function setRealmSettings(subdomain: string, settings: Record<string, unknown>): Promise<void> {
  const rows = await testDb()`
    UPDATE realms SET settings = settings || ${testDb().json(settings as postgres.JSONValue)}
    WHERE string_id = ${subdomain} RETURNING id`;
  if (rows.length !== 1) throw new Error(`no realm '${subdomain}'`);
}

export async function deactivateRealm(subdomain: string): Promise<void> {
  const rows = await testDb()`UPDATE realms SET deactivated = true WHERE string_id = ${subdomain} RETURNING id`;
  if (rows.length !== 1) throw new Error(`no realm '${subdomain}'`);
}

/** Merges keys into a user's settings (e.g. `email_address_visibility`). */
export async function setUserSettings(userId: number, settings: Record<string, unknown>): Promise<void> {
  const rows = await testDb()`
    UPDATE users SET settings = settings || ${testDb().json(settings as postgres.JSONValue)}
    WHERE id = ${userId} RETURNING id`;
  if (rows.length !== 1) throw new Error(`no user ${userId}`);
}

export async function grantCanCreateUsers(userId: number): Promise<void> {
  const rows = await testDb()`UPDATE users SET can_create_users = true WHERE id = ${userId} RETURNING id`;
  if (rows.length !== 1) throw new Error(`no user ${userId}`);
}

export async function deactivateUser(userId: number): Promise<void> {
  const rows = await testDb()`UPDATE users SET is_active = false WHERE id = ${userId} RETURNING id`;
  if (rows.length !== 1) throw new Error(`no user ${userId}`);
}

export async function userRow(userId: number): Promise<Record<string, unknown>> {
  const rows = await testDb()`SELECT * FROM users WHERE id = ${userId}`;
  if (rows.length !== 1) throw new Error(`no user ${userId}`);
  return rows[0]!;
}

export async function realmRow(subdomain: string): Promise<Record<string, unknown> | null> {
  const rows = await testDb()`SELECT * FROM realms WHERE string_id = ${subdomain}`;
  return rows[0] ?? null;
}
