// How the reference client applies events about a user's own things: the users they muted and
// everyone's status (Zulip's apply_event).
import { clone, type ClientState, type Obj } from './state.js';

export function applyMutedUsers(cs: ClientState, event: Obj): void {
  if ('muted_users' in cs.state) cs.state.muted_users = clone(event.muted_users);
}

/** Only the parts the event names change; a part set to "" is removed, and an empty status goes. */
export function applyUserStatus(cs: ClientState, event: Obj): void {
  const { state } = cs;
  if (!('user_status' in state)) return;
  const key = String(event.user_id);
  const status: Obj = state.user_status[key] ?? {};
  if (event.away !== undefined) {
    if (event.away) status.away = true;
    else delete status.away;
  }
  if (event.status_text !== undefined) {
    if (event.status_text === '') delete status.status_text;
    else status.status_text = event.status_text;
  }
  if (event.emoji_name !== undefined) {
    if (event.emoji_name === '') {
      delete status.emoji_name;
      delete status.emoji_code;
      delete status.reaction_type;
    } else {
      Object.assign(status, { emoji_name: event.emoji_name, emoji_code: event.emoji_code, reaction_type: event.reaction_type });
    }
  }
  if (Object.keys(status).length) state.user_status[key] = status;
  else delete state.user_status[key];
}
