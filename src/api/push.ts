// Mobile push registration.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { addDeviceToken, registerPushDevice, removeDeviceToken } from '../actions/users/push.js';

export const pushEndpoints = [
  endpoint({
    method: 'POST',
    path: '/mobile_push/register',
    auth: 'user',
    params: {
      token_kind: z.enum(['fcm', 'apns'], { message: 'Invalid token_kind' }),
      push_account_id: p.json(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)),
      push_public_key: p.string(),
      bouncer_public_key: p.string(),
      encrypted_push_registration: p.string(),
    },
    async handler({ actor, user, args }) {
      await registerPushDevice(actor, user, {
        tokenKind: args.token_kind,
        pushAccountId: args.push_account_id,
        pushPublicKey: args.push_public_key,
        bouncerPublicKey: args.bouncer_public_key,
        encryptedPushRegistration: args.encrypted_push_registration,
      });
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/me/apns_device_token',
    auth: 'user',
    params: { token: p.string(), appid: p.string() },
    async handler({ actor, user, args }) {
      await addDeviceToken(actor, user, 'apns', args.token, args.appid);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/users/me/apns_device_token',
    auth: 'user',
    params: { token: p.string() },
    async handler({ actor, user, args }) {
      await removeDeviceToken(actor, user, 'apns', args.token);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/users/me/android_gcm_reg_id',
    auth: 'user',
    params: { token: p.string() },
    async handler({ actor, user, args }) {
      await addDeviceToken(actor, user, 'gcm', args.token, null);
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/users/me/android_gcm_reg_id',
    auth: 'user',
    params: { token: p.string() },
    async handler({ actor, user, args }) {
      await removeDeviceToken(actor, user, 'gcm', args.token);
      return {};
    },
  }),
];
