// How the reference client applies organization events: realm settings, user groups,
// topic visibility policies and channel folders.
import { clone, type ClientState, type Obj } from './state.js';

const COMMON: Record<string, number> = { 'role:members': 1, 'role:administrators': 2, 'role:fullmembers': 3, 'role:moderators': 4 };
/** Deprecated policy keys register derives from group settings (Zulip keeps them in apply_event). */
const LEGACY_POLICIES: Record<string, [string, Record<string, number>, number]> = {
  can_create_public_channel_group: ['realm_create_public_stream_policy', COMMON, 1],
  can_create_private_channel_group: ['realm_create_private_stream_policy', COMMON, 1],
  can_create_web_public_channel_group: ['realm_create_web_public_stream_policy', { 'role:administrators': 2, 'role:moderators': 4, 'role:nobody': 6, 'role:owners': 7 }, 4],
  can_mention_many_users_group: ['realm_wildcard_mention_policy', {
    'role:everyone': 1, 'role:members': 2, 'role:fullmembers': 3, 'role:administrators': 5, 'role:nobody': 6, 'role:moderators': 7,
  }, 1],
};

function applyLegacyPolicy(state: Obj, setting: string, value: unknown): void {
  const legacy = LEGACY_POLICIES[setting];
  if (!legacy || !(legacy[0] in state) || !('realm_user_groups' in state)) return;
  const group = (state.realm_user_groups as Obj[]).find((g) => g.id === value && g.is_system_group);
  state[legacy[0]] = (group && legacy[1][group.name as string]) ?? legacy[2];
}

export function applyRealm(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (event.op === 'update') {
    state[`realm_${event.property}`] = clone(event.value);
    if (event.property === 'jitsi_server_url') {
      state.jitsi_server_url = state.realm_jitsi_server_url ?? state.server_jitsi_server_url;
    }
    if (event.property === 'message_edit_history_visibility_policy') {
      state.realm_allow_edit_history = event.value !== 'none';
    }
    return;
  }
  if (event.op === 'update_dict') {
    for (const [key, value] of Object.entries(event.data as Obj)) {
      if (key === 'max_file_upload_size_mib') state.max_file_upload_size_mib = value;
      else state[`realm_${key}`] = clone(value);
      applyLegacyPolicy(state, key, value);
    }
    return;
  }
  if (event.op === 'deactivated') return;
  throw new Error(`unknown realm event ${JSON.stringify(event)}`);
}

export function applyUserGroup(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('realm_user_groups' in state)) return;
  const groups = state.realm_user_groups as Obj[];
  const group = groups.find((g) => g.id === event.group_id);
  switch (event.op) {
    case 'add':
      groups.push(clone(event.group));
      groups.sort((a, b) => a.id - b.id);
      return;
    case 'update':
      if (group) Object.assign(group, clone(event.data));
      if (group && event.data.deactivated === true && !cs.opts.includeDeactivatedGroups) {
        state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
      }
      return;
    case 'remove':
      state.realm_user_groups = groups.filter((g) => g.id !== event.group_id);
      return;
    case 'add_members':
      if (group) group.members = [...group.members, ...event.user_ids].sort((a: number, b: number) => a - b);
      return;
    case 'remove_members':
      if (group) group.members = (group.members as number[]).filter((id) => !(event.user_ids as number[]).includes(id));
      return;
    case 'add_subgroups':
      if (group) group.direct_subgroup_ids = [...group.direct_subgroup_ids, ...event.direct_subgroup_ids].sort((a: number, b: number) => a - b);
      return;
    case 'remove_subgroups':
      if (group) group.direct_subgroup_ids = (group.direct_subgroup_ids as number[]).filter((id) => !(event.direct_subgroup_ids as number[]).includes(id));
      return;
    default:
      throw new Error(`unknown user_group event ${JSON.stringify(event)}`);
  }
}

export function applyUserTopic(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('user_topics' in state)) return;
  const topics = state.user_topics as Obj[];
  const index = topics.findIndex((t) => t.stream_id === event.stream_id && t.topic_name === event.topic_name);
  if (event.visibility_policy === 0) {
    if (index >= 0) topics.splice(index, 1);
    return;
  }
  // Zulip appends; a client replaces the old policy of the same topic.
  const entry = { stream_id: event.stream_id, topic_name: event.topic_name, visibility_policy: event.visibility_policy, last_updated: event.last_updated };
  if (index >= 0) topics.splice(index, 1);
  topics.push(entry);
}

export function applyChannelFolder(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('channel_folders' in state)) return;
  const folders = state.channel_folders as Obj[];
  if (event.op === 'add') {
    folders.push(clone(event.channel_folder));
    folders.sort((a, b) => a.id - b.id);
  } else if (event.op === 'update') {
    const folder = folders.find((f) => f.id === event.channel_folder_id);
    if (folder) Object.assign(folder, clone(event.data));
  } else {
    throw new Error(`unknown channel_folder event ${JSON.stringify(event)}`);
  }
}

