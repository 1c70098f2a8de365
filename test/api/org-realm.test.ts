import { beforeAll, describe, expect, it } from 'vitest';
import { newRealm, type Client } from '../helpers/client.js';
import { drain, expectError, expectSuccess, knownUser, openQueue, systemGroupIds } from './org-helpers.js';

let owner: Client;
let subdomain: string;
let admin: Client;
let member: Client;
let guest: Client;
let sys: Record<string, number>;

beforeAll(async () => {
  ({ owner, subdomain } = await newRealm('orgrealm'));
  admin = await knownUser(subdomain, 'Ada Admin', 200);
  member = await knownUser(subdomain, 'Mo Member');
  guest = await knownUser(subdomain, 'Gus Guest', 600);
  sys = await systemGroupIds(owner);
});

describe('realm permission settings in register', () => {
  it('start at Zulip defaults, as group ids', async () => {
    const r = expectSuccess(await member.post('/register', { fetch_event_types: ['realm'] }));
    expect(r).toMatchObject({
      realm_create_multiuse_invite_group: sys['role:administrators'],
      realm_can_access_all_users_group: sys['role:everyone'],
      realm_can_create_groups: sys['role:members'],
      realm_can_create_web_public_channel_group: sys['role:owners'],
      realm_can_manage_all_groups: sys['role:owners'],
      realm_can_delete_own_message_group: sys['role:everyone'],
      realm_can_mention_many_users_group: sys['role:administrators'],
      realm_can_invite_users_group: sys['role:members'],
      realm_can_create_bots_group: sys['role:members'],
      realm_topics_policy: 'allow_empty_topic',
      realm_message_content_edit_limit_seconds: 600,
      realm_message_retention_days: -1,
    });
    expect(r.server_supported_permission_settings.realm.can_access_all_users_group).toMatchObject({
      require_system_group: true,
      allowed_system_groups: ['role:everyone', 'role:members'],
    });
  });
});

describe('PATCH /realm', () => {
  it('changes a permission group and tells everyone with update_dict', async () => {
    const q = await openQueue(guest, { event_types: ['realm'] });
    expectSuccess(await admin.patch('/realm', { can_add_custom_emoji_group: { new: sys['role:moderators'], old: sys['role:members'] } }));
    expect(await drain(q)).toEqual([
      expect.objectContaining({ type: 'realm', op: 'update_dict', property: 'default', data: { can_add_custom_emoji_group: sys['role:moderators'] } }),
    ]);
    const after = expectSuccess(await member.post('/register', { fetch_event_types: ['realm'] }));
    expect(after.realm_can_add_custom_emoji_group).toBe(sys['role:moderators']);
  });

  it('refuses a stale old value with EXPECTATION_MISMATCH', async () => {
    const r = await admin.patch('/realm', { can_resolve_topics_group: { new: sys['role:members'], old: sys['role:nobody'] } });
    expectError(r, 400, 'EXPECTATION_MISMATCH');
  });

  it('accepts anonymous groups and lists only active members', async () => {
    const value = { direct_members: [member.userId], direct_subgroups: [sys['role:administrators']] };
    expectSuccess(await admin.patch('/realm', { can_move_messages_between_channels_group: { new: value } }));
    const r = expectSuccess(await member.post('/register', { fetch_event_types: ['realm'] }));
    expect(r.realm_can_move_messages_between_channels_group).toEqual(value);
    // A lone subgroup is the group itself.
    expectSuccess(await admin.patch('/realm', { can_move_messages_between_channels_group: { new: { direct_members: [], direct_subgroups: [sys['role:members']] } } }));
    const r2 = expectSuccess(await member.post('/register', { fetch_event_types: ['realm'] }));
    expect(r2.realm_can_move_messages_between_channels_group).toBe(sys['role:members']);
  });

  it('enforces the allowed values of each setting', async () => {
    expectError(await owner.patch('/realm', { can_access_all_users_group: { new: sys['role:administrators'] } }), 400, 'BAD_REQUEST');
    expectSuccess(await owner.patch('/realm', { can_access_all_users_group: { new: sys['role:members'] } }));
    expectSuccess(await owner.patch('/realm', { can_access_all_users_group: { new: sys['role:everyone'] } }));
    expectError(await owner.patch('/realm', { can_create_web_public_channel_group: { new: sys['role:members'] } }), 400, 'BAD_REQUEST');
    const anon = await owner.patch('/realm', { can_create_web_public_channel_group: { new: { direct_members: [owner.userId], direct_subgroups: [] } } });
    expectError(anon, 400, 'SYSTEM_GROUP_REQUIRED');
    expectSuccess(await owner.patch('/realm', { can_create_web_public_channel_group: { new: sys['role:administrators'] } }));
    expectError(await owner.patch('/realm', { can_create_groups: { new: sys['role:everyone'] } }), 400, 'BAD_REQUEST', "'can_create_groups' setting cannot be set to 'role:everyone' group.");
    expectError(await owner.patch('/realm', { can_create_groups: { new: sys['role:internet'] } }), 400, 'BAD_REQUEST');
    expectError(await owner.patch('/realm', { can_create_groups: { new: 999999 } }), 400, 'BAD_REQUEST');
    expectError(await owner.patch('/realm', { can_create_groups: { new: { direct_members: [999999], direct_subgroups: [] } } }), 400, 'BAD_REQUEST');
  });

  it('leaves owner-only settings to owners and everything to administrators', async () => {
    expectError(await member.patch('/realm', { name: 'Members rule' }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
    expectError(await admin.patch('/realm', { can_manage_all_groups: { new: sys['role:administrators'] } }), 400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
    expectError(await admin.patch('/realm', { create_multiuse_invite_group: { new: sys['role:members'] } }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await admin.patch('/realm', { waiting_period_threshold: 3 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await admin.patch('/realm', { message_retention_days: 30 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectSuccess(await owner.patch('/realm', { waiting_period_threshold: 0, message_retention_days: 'unlimited' }));
  });

  it('changes plain settings with Zulip event shapes', async () => {
    const q = await openQueue(member, { event_types: ['realm'] });
    expectSuccess(await admin.patch('/realm', { name: 'Renamed realm', description: 'About us', mandatory_topics: true, topics_policy: 'disable_empty_topic' }));
    expectSuccess(await admin.patch('/realm', { message_content_edit_limit_seconds: 'unlimited' }));
    const events = await drain(q);
    expect(events).toEqual([
      expect.objectContaining({ op: 'update', property: 'name', value: 'Renamed realm' }),
      expect.objectContaining({ op: 'update', property: 'description', value: 'About us' }),
      // mandatory_topics is the old name of the topics policy: one change, in Zulip's form.
      expect.objectContaining({ op: 'update_dict', property: 'default', data: { topics_policy: 'disable_empty_topic', mandatory_topics: true } }),
      expect.objectContaining({ op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: null } }),
    ]);
    const r = expectSuccess(await member.post('/register', { fetch_event_types: ['realm'] }));
    expect(r).toMatchObject({ realm_name: 'Renamed realm', realm_mandatory_topics: true, realm_topics_policy: 'disable_empty_topic', realm_message_content_edit_limit_seconds: null });
  });

  it('rejects bad values', async () => {
    expectError(await admin.patch('/realm', { topics_policy: 'inherit' }), 400, 'BAD_REQUEST');
    expectError(await admin.patch('/realm', { name: '' }), 400, 'BAD_REQUEST');
    expectError(await admin.patch('/realm', { name: 'x'.repeat(41) }), 400, 'BAD_REQUEST');
    expectError(await admin.patch('/realm', { message_content_edit_limit_seconds: -5 }), 400, 'BAD_REQUEST');
    expectError(await admin.patch('/realm', { new_stream_announcements_stream_id: 987654 }), 400, 'BAD_REQUEST', 'Invalid channel ID');
    expectError(await owner.patch('/realm', { waiting_period_threshold: -1 }), 400, 'BAD_REQUEST');
  });

  it('permission settings take effect: can_create_groups restricted to a named user', async () => {
    expectSuccess(await owner.patch('/realm', { can_create_groups: { new: { direct_members: [member.userId], direct_subgroups: [] } } }));
    expectSuccess(await member.post('/user_groups/create', { name: 'mine', description: '', members: [] }));
    expectError(await admin.post('/user_groups/create', { name: 'theirs', description: '', members: [] }), 400, 'BAD_REQUEST', 'Insufficient permission');
    expectSuccess(await owner.patch('/realm', { can_create_groups: { new: sys['role:members'] } }));
  });
});

describe('PATCH /realm/user_settings_defaults', () => {
  it('sets the email visibility new accounts start with', async () => {
    expectError(await member.patch('/realm/user_settings_defaults', { email_address_visibility: 4 }), 400, 'UNAUTHORIZED_PRINCIPAL');
    expectError(await admin.patch('/realm/user_settings_defaults', { email_address_visibility: 9 }), 400, 'BAD_REQUEST');
    const q = await openQueue(member, { event_types: ['realm_user_settings_defaults'] });
    expectSuccess(await admin.patch('/realm/user_settings_defaults', { email_address_visibility: 4 }));
    expect(await drain(q)).toEqual([expect.objectContaining({ type: 'realm_user_settings_defaults', op: 'update', property: 'email_address_visibility', value: 4 })]);
    const r = expectSuccess(await member.post('/register', { fetch_event_types: ['realm_user_settings_defaults'] }));
    expect(r.realm_user_settings_defaults.email_address_visibility).toBe(4);
    expectSuccess(await admin.patch('/realm/user_settings_defaults', { email_address_visibility: 1 }));
  });
});
