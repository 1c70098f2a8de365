// The columns both kinds of invitation share (multiuse_invites and email_invites): what an
// invitation grants, its key, its creator and its expiry, as rows and as the model's InviteGrant.
import type { InviteGrant } from '../model/types.js';

export interface InviteGrantRow {
  realm_id: number;
  invite_key: string;
  referred_by: number;
  invited_as: number;
  stream_ids: number[];
  group_ids: number[];
  include_realm_default_subscriptions: boolean;
  expires_at: Date | null;
}

export const grantOfRow = (r: InviteGrantRow): InviteGrant => ({
  realmId: r.realm_id,
  key: r.invite_key,
  referredBy: r.referred_by,
  invitedAs: r.invited_as,
  streamIds: r.stream_ids,
  groupIds: r.group_ids,
  includeRealmDefaultSubscriptions: r.include_realm_default_subscriptions,
  expiresAt: r.expires_at,
});

export const rowOfGrant = (g: InviteGrant): InviteGrantRow => ({
  realm_id: g.realmId,
  invite_key: g.key,
  referred_by: g.referredBy,
  invited_as: g.invitedAs,
  stream_ids: g.streamIds,
  group_ids: g.groupIds,
  include_realm_default_subscriptions: g.includeRealmDefaultSubscriptions,
  expires_at: g.expiresAt,
});
