// Mobile push registrations: end-to-end encrypted device registrations for the push relay,
// and the legacy APNs / FCM device tokens. Delivery happens in jobs, not here.
import { ApiError, badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { addPushToken, removePushToken, upsertPushDevice } from '../../db/push.js';
import { actingUser } from '../../permissions/roles.js';

const MAX_TOKEN_LENGTH = 4096;

export const pushServiceNotConfigured = () =>
  new ApiError('PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.', 400);

/** Standard (RFC 4648 §4) base64 with padding: no URL-safe alphabet, no whitespace. */
export function isStandardBase64(s: string): boolean {
  return s.length > 0 && s.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(s);
}

function requireHuman(user: User): void {
  if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
}

export interface PushDeviceRegistration {
  tokenKind: 'fcm' | 'apns';
  pushAccountId: number;
  pushPublicKey: string;
  bouncerPublicKey: string;
  encryptedPushRegistration: string;
}

/** POST /mobile_push/register. */
export function registerPushDevice(actor: RealmActor, acting: User, r: PushDeviceRegistration): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireHuman(user);
    // Bad input is reported before the server's own configuration.
    if (!isStandardBase64(r.pushPublicKey)) throw badRequest('Invalid `push_public_key`');
    if (!isStandardBase64(r.bouncerPublicKey)) throw badRequest('Invalid `bouncer_public_key`');
    if (!isStandardBase64(r.encryptedPushRegistration)) throw badRequest('Invalid `encrypted_push_registration`');
    if (!actor.services.config.PUSH_RELAY_URL) throw pushServiceNotConfigured();
    await upsertPushDevice(actor.sql, { realmId: actor.realm.id, userId: user.id, ...r });
  });
}

function checkToken(token: string, kind: 'apns' | 'gcm'): void {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw badRequest('Empty or invalid length token');
  // APNs tokens are hexadecimal.
  if (kind === 'apns' && !/^([0-9a-fA-F]{2})+$/.test(token)) throw badRequest('Invalid APNS token');
}

/** POST /users/me/apns_device_token and /users/me/android_gcm_reg_id. */
export function addDeviceToken(actor: RealmActor, acting: User, kind: 'apns' | 'gcm', token: string, appId: string | null): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireHuman(user);
    checkToken(token, kind);
    if (kind === 'apns' && (appId === null || !/^[.a-zA-Z0-9-]+$/.test(appId))) throw badRequest('Invalid app ID');
    await addPushToken(actor.sql, { realmId: actor.realm.id, userId: user.id, kind, token, iosAppId: appId });
  });
}

/** DELETE of the same: the token must be registered for this user. */
export function removeDeviceToken(actor: RealmActor, acting: User, kind: 'apns' | 'gcm', token: string): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireHuman(user);
    checkToken(token, kind);
    if (!(await removePushToken(actor.sql, user.id, kind, token))) throw badRequest('Token does not exist');
  });
}
