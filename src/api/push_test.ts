// POST /mobile_push/test_notification: a test notification to the caller's mobile devices.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { sendTestPushNotification } from '../actions/users/pushTest.js';

export const pushTestEndpoints = [
  endpoint({
    method: 'POST',
    path: '/mobile_push/test_notification',
    auth: 'user',
    params: { token: p.string().optional() },
    async handler({ actor, user, args }) {
      await sendTestPushNotification(actor, user, args.token);
      return {};
    },
  }),
];
