// The incoming email gateway's addresses (GET /streams/{stream_id}/email_address), and the
// link of an email change confirmation (also served at /accounts/confirm_new_email/{key}/,
// the address Zulip mails).
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { channelEmailAddressFor } from '../actions/email/channelAddress.js';
import { confirmEmailChange } from '../actions/email/emailChange.js';

export const emailEndpoints = [
  endpoint({
    method: 'GET',
    path: '/streams/{stream_id}/email_address',
    auth: 'user',
    params: { stream_id: p.int(), sender_id: p.int().optional() },
    async handler({ actor, user, args }) {
      return { email: await channelEmailAddressFor(actor, user, args.stream_id, args.sender_id) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/accounts/confirm_new_email/{confirmation_key}',
    auth: 'none',
    params: { confirmation_key: p.string() },
    async handler({ actor, args }) {
      await confirmEmailChange(actor, args.confirmation_key);
      return { msg: 'Your new email address is confirmed.' };
    },
  }),
];
