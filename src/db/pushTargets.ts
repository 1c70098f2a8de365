// Reads of mobile push registrations for delivery (the registrations themselves: db/push.ts).
import type { Sql } from './connect.js';

/** An end-to-end encrypted registration, or a legacy APNs / FCM token, as the relay gets it. */
export type PushTarget =
  | {
      type: 'e2ee';
      token_kind: 'fcm' | 'apns';
      push_account_id: number;
      push_public_key: string;
      bouncer_public_key: string;
      encrypted_push_registration: string;
    }
  | { type: 'legacy'; token_kind: 'fcm' | 'apns'; token: string; ios_app_id: string | null };

/** Which of these users of a realm have at least one push registration. */
export async function usersWithPushDevices(sql: Sql, realmId: number, userIds: number[]): Promise<number[]> {
  if (userIds.length === 0) return [];
  const rows = await sql<{ user_id: number }[]>`
    SELECT user_id FROM push_devices WHERE realm_id = ${realmId} AND user_id = ANY(${userIds}::int[])
    UNION
    SELECT user_id FROM push_device_tokens WHERE realm_id = ${realmId} AND user_id = ANY(${userIds}::int[])`;
  return rows.map((r) => r.user_id);
}

/** Every registration of one user, oldest first. */
export async function loadPushTargets(sql: Sql, realmId: number, userId: number): Promise<PushTarget[]> {
  const e2ee = await sql<{
    token_kind: 'fcm' | 'apns';
    push_account_id: string | number;
    push_public_key: string;
    bouncer_public_key: string;
    encrypted_push_registration: string;
  }[]>`
    SELECT token_kind, push_account_id, push_public_key, bouncer_public_key, encrypted_push_registration
    FROM push_devices WHERE realm_id = ${realmId} AND user_id = ${userId} ORDER BY id`;
  const legacy = await sql<{ kind: 'apns' | 'gcm'; token: string; ios_app_id: string | null }[]>`
    SELECT kind, token, ios_app_id FROM push_device_tokens
    WHERE realm_id = ${realmId} AND user_id = ${userId} ORDER BY id`;
  return [
    ...e2ee.map((r): PushTarget => ({
      type: 'e2ee',
      token_kind: r.token_kind,
      push_account_id: Number(r.push_account_id),
      push_public_key: r.push_public_key,
      bouncer_public_key: r.bouncer_public_key,
      encrypted_push_registration: r.encrypted_push_registration,
    })),
    // The legacy Android endpoint still says "gcm"; the relay hears the service's current name.
    ...legacy.map((r): PushTarget => ({ type: 'legacy', token_kind: r.kind === 'gcm' ? 'fcm' : 'apns', token: r.token, ios_app_id: r.ios_app_id })),
  ];
}
