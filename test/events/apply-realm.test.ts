// The apply-events property for the organization: PATCH /realm properties and permission
// group settings, the defaults of new users' settings, linkifiers, code playgrounds and
// channel folders.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Client } from '../helpers/client.js';
import { channelId, closeWatchers, newOrganization, ok, openWatchers, systemGroups, verify, type Watcher } from './support.js';

let owner: Client;
let bob: Client;
let guest: Client;
let all: Watcher[];
let groups: Record<string, number>;

beforeAll(async () => {
  ({ owner, bob, guest } = await newOrganization('aprealm', ['bob', 'guest']));
  groups = await systemGroups(owner);
  ok(await owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'announcements' }], principals: [owner.userId, bob.userId, guest.userId] }));
  all = await openWatchers({ owner, bob, guest });
});

afterAll(() => closeWatchers(all));

describe('organization properties', () => {
  it('name and description', async () => {
    await verify(all, async () => ok(await owner.patch('/realm', { name: 'Renamed Realm' })));
    await verify(all, async () => ok(await owner.patch('/realm', { description: 'A **new** description' })));
  });

  it('plain properties and the ones sent as update_dict', async () => {
    await verify(all, async () => ok(await owner.patch('/realm', { inline_image_preview: false, default_language: 'fr' })));
    await verify(all, async () => ok(await owner.patch('/realm', { message_content_edit_limit_seconds: 3600, allow_message_editing: false })));
    await verify(all, async () => ok(await owner.patch('/realm', { message_edit_history_visibility_policy: 'none' })));
    await verify(all, async () => ok(await owner.patch('/realm', { topics_policy: 'disable_empty_topic' })));
    await verify(all, async () => ok(await owner.patch('/realm', { video_chat_provider: 0, giphy_rating: 3 })));
  });

  it('announcement channels', async () => {
    const id = await channelId(owner, 'announcements');
    await verify(all, async () => ok(await owner.patch('/realm', { new_stream_announcements_stream_id: id, signup_announcements_stream_id: id })));
    await verify(all, async () => ok(await owner.patch('/realm', { new_stream_announcements_stream_id: -1 })));
  });

  it('the waiting period makes new members not yet full members', async () => {
    await verify(all, async () => ok(await owner.patch('/realm', { waiting_period_threshold: 10 })));
    await verify(all, async () => ok(await owner.patch('/realm', { waiting_period_threshold: 0 })));
  });

  it('permission settings: system groups and anonymous groups', async () => {
    await verify(all, async () => ok(await owner.patch('/realm', { can_create_public_channel_group: { new: groups['role:administrators'] } })));
    await verify(all, async () => ok(await owner.patch('/realm', { can_create_public_channel_group: { new: groups['role:members'] } })));
    await verify(all, async () =>
      ok(await owner.patch('/realm', { can_invite_users_group: { new: { direct_members: [bob.userId], direct_subgroups: [groups['role:administrators']] } } })),
    );
    await verify(all, async () => ok(await owner.patch('/realm', { can_add_subscribers_group: { new: groups['role:moderators'] } })));
    await verify(all, async () => ok(await owner.patch('/realm', { can_create_private_channel_group: { new: { direct_members: [], direct_subgroups: [groups['role:owners']] } } })));
    await verify(all, async () => ok(await owner.patch('/realm', { can_mention_many_users_group: { new: groups['role:everyone'] } })));
  });

  it('the defaults of new users\' settings', async () => {
    // email_address_visibility is the one default the server lets organizations change.
    await verify(all, async () => ok(await owner.patch('/realm/user_settings_defaults', { email_address_visibility: 3 })));
    await verify(all, async () => ok(await owner.patch('/realm/user_settings_defaults', { email_address_visibility: 1 })));
  });
});

describe('linkifiers and playgrounds', () => {
  it('adding, changing, reordering and removing linkifiers', async () => {
    const a = (await verify(all, async () => ok(await owner.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' })))).result.id;
    const b = (await verify(all, async () => ok(await owner.post('/realm/filters', { pattern: 'RFC(?P<n>[0-9]+)', url_template: 'https://rfc.example/{n}' })))).result.id;
    await verify(all, async () => ok(await owner.patch(`/realm/filters/${a}`, { pattern: '#(?P<id>[0-9]+)', url_template: 'https://issues.example/{id}' })));
    await verify(all, async () => ok(await owner.patch('/realm/linkifiers', { ordered_linkifier_ids: [b, a] })));
    await verify(all, async () => ok(await owner.delete(`/realm/filters/${a}`)));
  });

  it('adding and removing a code playground', async () => {
    const id = (await verify(all, async () => ok(await owner.post('/realm/playgrounds', { name: 'Python run', pygments_language: 'Python', url_template: 'https://run.example/?c={code}' })))).result.id;
    await verify(all, async () => ok(await owner.delete(`/realm/playgrounds/${id}`)));
  });
});

describe('channel folders', () => {
  it('creating, editing and archiving folders', async () => {
    const a = (await verify(all, async () => ok(await owner.post('/channel_folders/create', { name: 'Engineering', description: 'Build **things**' })))).result.channel_folder_id;
    const b = (await verify(all, async () => ok(await owner.post('/channel_folders/create', { name: 'Social' })))).result.channel_folder_id;
    await verify(all, async () => ok(await owner.patch(`/channel_folders/${a}`, { name: 'Eng', description: 'Ship it' })));
    await verify(all, async () => ok(await owner.patch(`/channel_folders/${b}`, { is_archived: true })));
    await verify(all, async () => ok(await owner.patch(`/channel_folders/${b}`, { is_archived: false })));
  });
});
