// Queries on mobile push registrations.
import type { Sql } from './connect.js';

export interface PushDeviceInput {
  realmId: number;
  userId: number;
  tokenKind: 'fcm' | 'apns';
  pushAccountId: number;
  pushPublicKey: string;
  bouncerPublicKey: string;
  encryptedPushRegistration: string;
}

/** Stores an end-to-end encrypted registration; a repeat for the same account replaces it. */
export async function upsertPushDevice(sql: Sql, d: PushDeviceInput): Promise<void> {
  await sql`
    INSERT INTO push_devices (realm_id, user_id, token_kind, push_account_id, push_public_key,
                              bouncer_public_key, encrypted_push_registration)
    VALUES (${d.realmId}, ${d.userId}, ${d.tokenKind}, ${d.pushAccountId}, ${d.pushPublicKey},
            ${d.bouncerPublicKey}, ${d.encryptedPushRegistration})
    ON CONFLICT (user_id, push_account_id) DO UPDATE SET
      token_kind = EXCLUDED.token_kind, push_public_key = EXCLUDED.push_public_key,
      bouncer_public_key = EXCLUDED.bouncer_public_key,
      encrypted_push_registration = EXCLUDED.encrypted_push_registration, created_at = now()`;
}

export async function addPushToken(
  sql: Sql,
  t: { realmId: number; userId: number; kind: 'apns' | 'gcm'; token: string; iosAppId: string | null },
): Promise<void> {
  await sql`
    INSERT INTO push_device_tokens (realm_id, user_id, kind, token, ios_app_id)
    VALUES (${t.realmId}, ${t.userId}, ${t.kind}, ${t.token}, ${t.iosAppId})
    ON CONFLICT (user_id, kind, token) DO UPDATE SET ios_app_id = EXCLUDED.ios_app_id`;
}

/** Removes a token; returns whether it existed. */
export async function removePushToken(sql: Sql, userId: number, kind: 'apns' | 'gcm', token: string): Promise<boolean> {
  const rows = await sql`DELETE FROM push_device_tokens WHERE user_id = ${userId} AND kind = ${kind} AND token = ${token} RETURNING id`;
  return rows.length > 0;
}

/** Whether the user registered this legacy APNs / FCM token. */
export async function hasPushToken(sql: Sql, userId: number, token: string): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM push_device_tokens WHERE user_id = ${userId} AND token = ${token} LIMIT 1`;
  return rows.length > 0;
}
