// A reference client: how a Zulip client keeps the POST /register state up to date from the
// events of its queue. It follows Zulip's own `apply_event` (zerver/lib/events.py), in the
// form a client can run: it knows only the register answer and the events, never the server's
// database. Where Zulip's reducer asks the database (a recomputed max_message_id after a
// delete, all bots after becoming an administrator, default channels after leaving the guest
// role), this client marks the key as needing a refetch instead, and the comparison leaves
// that key out and says so.
//
// The state is kept in Zulip's intermediate forms (users by id with `is_active`, unread
// messages by message id, recent conversations by participants) and turned back into the
// register shape by `registerShape`, as Zulip's post_process_state does. This file dispatches
// each event type; clientState/ holds the state and the reducers of each family.
import { type ClientState, type Obj } from './clientState/state.js';
import { applyDeleteMessage, applyFlags, applyMessage, applyUpdateMessage } from './clientState/messages.js';
import { applyRealmBot, applyRealmUser } from './clientState/users.js';
import { applyStream, applySubscription } from './clientState/channels.js';
import { applyChannelFolder, applyRealm, applyUserGroup, applyUserTopic } from './clientState/organization.js';
import { applyDrafts, applyNavigationView, applySavedSnippets, applyScheduled } from './clientState/later.js';
import { applyMutedUsers, applyUserStatus } from './clientState/personal.js';

export { fromRegister, type ClientOptions, type ClientState } from './clientState/state.js';
export { registerShape } from './clientState/registerShape.js';

export function applyEvents(cs: ClientState, events: Obj[]): void {
  for (const event of events) applyEvent(cs, event);
}

function applyEvent(cs: ClientState, event: Obj): void {
  const { state, opts } = cs;
  switch (event.type) {
    case 'heartbeat':
    case 'typing':
    case 'typing_edit_message':
    case 'reaction':
    case 'invites_changed':
    case 'attachment':
      // Transient, or about data register does not carry (uploads are listed by GET /attachments).
      return;
    case 'muted_topics':
      if ('muted_topics' in state) state.muted_topics = event.muted_topics;
      return;
    case 'restart':
      // The server was replaced: what register said about it is now what the event says.
      for (const key of ['zulip_version', 'zulip_merge_base', 'zulip_feature_level', 'server_generation']) {
        if (key in state) state[key] = event[key];
      }
      return;
    case 'message':
      return applyMessage(cs, event);
    case 'update_message':
      return applyUpdateMessage(cs, event);
    case 'delete_message':
      return applyDeleteMessage(cs, event);
    case 'update_message_flags':
      return applyFlags(cs, event);
    case 'custom_profile_fields': {
      state.custom_profile_fields = event.fields;
      const ids = new Set((event.fields as Obj[]).map((f) => String(f.id)));
      for (const u of cs.rawUsers?.values() ?? []) {
        if (!u.profile_data) continue;
        for (const id of Object.keys(u.profile_data)) if (!ids.has(id)) delete u.profile_data[id];
      }
      return;
    }
    case 'realm_user':
      return applyRealmUser(cs, event);
    case 'realm_bot':
      return applyRealmBot(cs, event);
    case 'stream':
      return applyStream(cs, event);
    case 'subscription':
      return applySubscription(cs, event);
    case 'default_streams':
      state.realm_default_streams = event.default_streams;
      return;
    case 'realm':
      return applyRealm(cs, event);
    case 'realm_user_settings_defaults':
      state.realm_user_settings_defaults[event.property] = event.value;
      return;
    case 'presence':
      // The event has the legacy per-client form only; Zulip's reducer reads the user's row
      // from the database here, in whichever form the register asked for.
      if ('presences' in state) cs.needsRefetch.add('presences');
      return;
    case 'alert_words':
      state.alert_words = event.alert_words;
      return;
    case 'realm_linkifiers':
      if (opts.linkifierUrlTemplate) state.realm_linkifiers = event.realm_linkifiers;
      return;
    case 'realm_filters':
      return;
    case 'realm_playgrounds':
      state.realm_playgrounds = event.realm_playgrounds;
      return;
    case 'realm_emoji':
      state.realm_emoji = event.realm_emoji;
      return;
    case 'user_settings':
      if ('user_settings' in state) state.user_settings[event.property] = event.value;
      // Clients of the old top-level settings keep those too (Zulip's reducer does the same).
      if (event.property in state) state[event.property] = event.value;
      return;
    case 'update_display_settings':
      state[event.setting_name] = event.setting;
      return;
    case 'update_global_notifications':
      state[event.notification_name] = event.setting;
      return;
    case 'user_group':
      return applyUserGroup(cs, event);
    case 'user_topic':
      return applyUserTopic(cs, event);
    case 'channel_folder':
      return applyChannelFolder(cs, event);
    case 'scheduled_messages':
      return applyScheduled(cs, event, 'scheduled_messages', 'scheduled_message_id');
    case 'reminders':
      return applyScheduled(cs, event, 'reminders', 'reminder_id');
    case 'drafts':
      return applyDrafts(cs, event);
    case 'saved_snippets':
      return applySavedSnippets(cs, event);
    case 'navigation_view':
      return applyNavigationView(cs, event);
    case 'muted_users':
      return applyMutedUsers(cs, event);
    case 'user_status':
      return applyUserStatus(cs, event);
    default:
      throw new Error(`the reference client does not know event type ${String(event.type)}: ${JSON.stringify(event)}`);
  }
}
