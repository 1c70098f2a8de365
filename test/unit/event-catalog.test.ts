// The event catalog: every constructor builds an event its schema accepts, and the check the
// test client runs on every event it receives refuses a field too many, a field missing, a
// wrong type and an unknown event.
import { describe, expect, it } from 'vitest';
import * as catalog from '../../src/events/catalog/index.js';

const stream = { stream_id: 1, name: 'design' };
const built: catalog.ServerEvent[] = [
  catalog.updateMessageEvent({ user_id: 1, edit_timestamp: 1, message_id: 2, message_ids: [2], rendering_only: false, flags: ['read'] }),
  ...catalog.deleteMessageEvents([1, 2], { message_type: 'stream', stream_id: 1, topic: 't' }, false),
  ...catalog.deleteMessageEvents([1, 2], { message_type: 'private' }, true),
  catalog.updateMessageFlagsEvent('remove', 'read', [3], { 3: { type: 'private', user_ids: [4], mentioned: true } }),
  catalog.reactionEvent('add', { message_id: 1, emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji', user_id: 2, user: { user_id: 2, email: 'a@b.test', full_name: 'A' } }),
  catalog.directTypingEvent('start', { user_id: 1, email: 'a@b.c' }, [{ user_id: 2, email: 'b@b.c' }]),
  catalog.channelTypingEvent('stop', { user_id: 1, email: 'a@b.c' }, 5, 'topic'),
  catalog.userTopicEvent({ stream_id: 1, topic_name: 't', last_updated: 5, visibility_policy: 2 }),
  catalog.streamDeleteEvent(1, true),
  catalog.streamUpdateEvent(1, 'design', 'description', 'new', { rendered_description: '<p>new</p>' }),
  catalog.subscriptionRemoveEvent([{ name: stream.name, stream_id: stream.stream_id }]),
  catalog.subscriptionUpdateEvent(1, 'is_muted', true),
  catalog.subscriptionPeerEvent('peer_add', [1], [2, 3]),
  catalog.defaultStreamsEvent([1]),
  catalog.channelFolderUpdateEvent(1, { name: 'x' }),
  catalog.realmUserUpdateEvent(5, { full_name: 'Ann' }),
  catalog.realmUserUpdateEvent(5, { custom_profile_field: { id: 1, value: 'x', rendered_value: '<p>x</p>' } }),
  catalog.realmUserRemoveEvent(5, 'Ann'),
  catalog.realmBotUpdateEvent(6, { owner_id: 5 }),
  catalog.realmBotDeleteEvent(6),
  catalog.userSettingsEvent('default_language', 'de', 'Deutsch'),
  catalog.displaySettingsEvent('a@b.c', 'twenty_four_hour_time', true),
  catalog.notificationSettingsEvent('a@b.c', 'enable_sounds', false),
  catalog.alertWordsEvent(['x']),
  catalog.legacyPresenceEvent(5, 'a@b.c', 3.5, { client: 'website', status: 'active', timestamp: 1, pushable: false }),
  catalog.userGroupUpdateEvent(3, { name: 'g', can_manage_group: 7 }),
  catalog.userGroupRemoveEvent(3),
  catalog.userGroupMembersEvent('add_members', 3, [5]),
  catalog.userGroupSubgroupsEvent('remove_subgroups', 3, [4]),
  catalog.realmUpdateEvent('name', 'Acme'),
  catalog.realmUpdateDictEvent({ can_invite_users_group: 4 }),
  catalog.realmUserSettingsDefaultsEvent('enter_sends', true),
  catalog.realmFiltersEvent(),
  catalog.invitesChangedEvent(),
  catalog.heartbeatEvent(),
];

describe('the event catalog', () => {
  it('accepts what its constructors build', () => {
    for (const [i, event] of built.entries()) expect(catalog.checkEvent({ ...event, id: i }), JSON.stringify(event)).toBeNull();
  });

  it('knows every event type its constructors build', () => {
    for (const event of built) expect(catalog.EVENT_TYPES).toContain(event.type);
  });

  it('refuses an extra field, a missing one, a wrong type, an unknown event and a missing id', () => {
    const update = { ...catalog.realmUserUpdateEvent(5, { full_name: 'Ann' }), id: 0 };
    expect(catalog.checkEvent({ ...update, person: { ...update.person, is_billing_admin: false } })).toMatch(/is_billing_admin/);
    expect(catalog.checkEvent({ id: 0, type: 'subscription', op: 'peer_add', stream_ids: [1] })).toMatch(/user_ids/);
    expect(catalog.checkEvent({ id: 0, type: 'alert_words', alert_words: 'x' })).toMatch(/alert_words/);
    expect(catalog.checkEvent({ id: 0, type: 'no_such_event' })).toMatch(/unknown event type/);
    expect(catalog.checkEvent(catalog.heartbeatEvent())).toMatch(/id/);
  });

  it('checks the API objects inside events field by field', () => {
    const message = { ...catalog.messageEvent({ id: 1 }, []), id: 0 };
    expect(catalog.checkEvent(message)).toMatch(/message\.sender_id/);
  });
});
