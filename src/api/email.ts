// The incoming email gateway's addresses: GET /streams/{stream_id}/email_address.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { channelEmailAddressFor } from '../actions/email/channelAddress.js';

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
];
