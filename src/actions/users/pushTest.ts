// POST /mobile_push/test_notification (Zulip's send_test_push_notification_api): a test
// notification through the push relay job to one registered device (by its token) or to all
// of the user's devices.
import { ApiError } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { actingUser } from '../../permissions/roles.js';
import { realmUrl } from '../../http/urls.js';
import { hasPushToken } from '../../db/push.js';
import { usersWithPushDevices } from '../../db/pushTargets.js';
import { pushServiceNotConfigured } from './push.js';

const deviceNotRecognized = () => new ApiError('INVALID_PUSH_DEVICE_TOKEN', 'Device not recognized', 400);

export async function sendTestPushNotification(actor: RealmActor, acting: User, token: string | undefined): Promise<void> {
  const user = actingUser(actor.state, acting);
  const { config } = actor.services;
  if (token !== undefined && !(await hasPushToken(actor.sql, user.id, token))) throw deviceNotRecognized();
  if (!config.PUSH_RELAY_URL) throw pushServiceNotConfigured();
  // A user without devices gets nothing, as on Zulip: there is nowhere to send to.
  if (token === undefined && (await usersWithPushDevices(actor.sql, actor.realm.id, [user.id])).length === 0) return;
  const url = realmUrl(config, actor.realm);
  await actor.services.jobs.enqueue('push', {
    realmId: actor.realm.id,
    userId: user.id,
    payload: { event: 'test', server: config.externalHost, realm_id: actor.realm.id, realm_name: actor.realm.name, realm_uri: url, realm_url: url, user_id: user.id },
    ...(token !== undefined ? { token } : {}),
  });
}
