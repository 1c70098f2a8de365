// Reusable invitation links, and signing up with one.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { createMultiuseInvite, DEFAULT_INVITE_VALIDITY_MINUTES, registerWithInvite, revokeMultiuseInvite } from '../actions/realm/invites.js';
import { Role } from '../model/types.js';
import { listInvites } from '../views/invites.js';
import { inviteUsersByEmail, resendEmailInvite, revokeEmailInvite } from '../actions/realm/emailInvites.js';

export const inviteEndpoints = [
  endpoint({
    method: 'POST',
    path: '/invites/multiuse',
    auth: 'user',
    params: {
      invite_expires_in_minutes: p.json(z.union([z.number().int(), z.null()])).default(DEFAULT_INVITE_VALIDITY_MINUTES),
      invite_as: p.int().default(Role.MEMBER),
      stream_ids: p.intList().default([]),
      group_ids: p.intList().default([]),
      include_realm_default_subscriptions: p.bool().default(false),
    },
    async handler({ actor, user, args }) {
      const link = await createMultiuseInvite(actor, user, {
        expiresInMinutes: args.invite_expires_in_minutes,
        invitedAs: args.invite_as,
        streamIds: args.stream_ids,
        groupIds: args.group_ids,
        includeRealmDefaultSubscriptions: args.include_realm_default_subscriptions,
      });
      return { invite_link: link };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/invites',
    auth: 'user',
    params: {
      invitee_emails: p.string(),
      invite_expires_in_minutes: p.json(z.union([z.number().int(), z.null()])).default(DEFAULT_INVITE_VALIDITY_MINUTES),
      invite_as: p.int().default(Role.MEMBER),
      stream_ids: p.intList(),
      group_ids: p.intList().default([]),
      include_realm_default_subscriptions: p.bool().default(false),
      notify_referrer_on_join: p.bool().default(true),
    },
    async handler({ actor, user, args }) {
      await inviteUsersByEmail(actor, user, {
        inviteeEmails: args.invitee_emails,
        expiresInMinutes: args.invite_expires_in_minutes,
        invitedAs: args.invite_as,
        streamIds: args.stream_ids,
        groupIds: args.group_ids,
        includeRealmDefaultSubscriptions: args.include_realm_default_subscriptions,
        notifyReferrerOnJoin: args.notify_referrer_on_join,
      });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/invites/{invite_id}',
    auth: 'user',
    params: { invite_id: p.int() },
    async handler({ actor, user, args }) {
      await revokeEmailInvite(actor, user, args.invite_id);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/invites/{invite_id}/resend',
    auth: 'user',
    params: { invite_id: p.int() },
    async handler({ actor, user, args }) {
      await resendEmailInvite(actor, user, args.invite_id);
      return {};
    },
  }),
  endpoint({
    method: 'GET',
    path: '/invites',
    auth: 'user',
    params: {},
    async handler({ actor, user }) {
      return { invites: listInvites(actor, user) };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/invites/multiuse/{invite_id}',
    auth: 'user',
    params: { invite_id: p.int() },
    async handler({ actor, user, args }) {
      await revokeMultiuseInvite(actor, user, args.invite_id);
      return {};
    },
  }),
  endpoint({
    method: 'POST',
    path: '/register_with_invite',
    auth: 'none',
    params: { key: p.string(), email: p.string(), password: p.string(), full_name: p.string() },
    async handler({ actor, args }) {
      const user = await registerWithInvite(actor, {
        key: args.key.trim(),
        email: args.email,
        password: args.password,
        fullName: args.full_name,
      });
      return { user_id: user.id, api_key: user.apiKey, email: user.deliveryEmail };
    },
  }),
];
