// Users coming into and going out of the sight of viewers who may not see everyone (guests,
// when the realm limits what guests see). Subscriptions and direct messages decide what they
// see: a subscription change tells them which users they gained (`realm_user` add) and lost
// (`realm_user` remove), as Zulip's send_user_creation_events_on_adding_subscriptions and
// send_user_remove_events_on_removing_subscriptions do; the first message of a direct
// conversation tells its participants of each other, as Zulip's
// get_recipients_for_user_creation_events and do_send_messages do.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { Conversation } from '../../model/messageState.js';
import { canAccessAllUsers, canAccessUser } from '../../permissions/userAccess.js';
import { formatUser, inaccessibleUserView } from '../../views/users.js';
import { realmUserAddEvent } from '../../events/catalog/index.js';
import { hasCapability } from '../../events/shape.js';
import { publishRealmUserRemove } from './events.js';

/** What viewers who may not see everyone see of some users (all of them unless narrowed). */
export interface Sight {
  /** The users looked at, as viewers and as the ones seen. */
  users: readonly User[];
  /** Per active viewer who may not see everyone, the ids of `users` it sees. */
  seen: Map<number, Set<number>>;
}

/** For each viewer who may not see everyone, the users they see (among `userIds` if given). */
export function limitedSight(actor: RealmActor, userIds?: readonly number[]): Sight {
  const { state } = actor;
  const users = userIds ? userIds.map((id) => state.users.get(id)).filter((u): u is User => u !== undefined) : [...state.users.values()];
  return sightOf(actor, users, userIds ? users.filter((u) => u.isActive) : state.activeUsers());
}

/** Which of `users` each of `viewers` who may not see everyone sees (all active users by default). */
export function sightOf(actor: RealmActor, users: readonly User[], viewers: readonly User[] = actor.state.activeUsers()): Sight {
  const { state } = actor;
  const seen = new Map<number, Set<number>>();
  for (const viewer of viewers) {
    if (canAccessAllUsers(state, viewer)) continue;
    const sees = new Set<number>();
    for (const u of users) if (canAccessUser(state, viewer, u)) sees.add(u.id);
    seen.set(viewer.id, sees);
  }
  return { users, seen };
}

/** Tells each limited viewer of `before` who came into and went out of their sight since. */
export function publishSightChanges(actor: RealmActor, before: Sight): void {
  const { state } = actor;
  const { config } = actor.services;
  for (const [viewerId, was] of before.seen) {
    const viewer = state.users.get(viewerId);
    if (!viewer?.isActive) continue;
    for (const looked of before.users) {
      const u = state.users.get(looked.id) ?? looked; // as it is now (activated, deactivated)
      const sees = canAccessUser(state, viewer, u);
      if (sees && !was.has(u.id)) {
        actor.events.publish((queue) => realmUserAddEvent(formatUser(config, actor.realm, viewer, u, { clientGravatar: queue.opts.clientGravatar })), [viewerId]);
      } else if (!sees && was.has(u.id)) {
        publishRealmUserRemove(actor, u, [viewerId]);
      }
    }
  }
}

/**
 * A `realm_user` add of Zulip's "Unknown user" placeholder for `userId`, to these viewers who
 * may not see that user. Zulip marks the event `inaccessible_user` between its server and its
 * event queues, which drop the mark before the client sees the event and withhold the event
 * from clients registered with `user_list_incomplete` (they list no users out of sight): so
 * only clients without that capability get it, and it carries no extra field.
 */
export function publishPlaceholderAdd(actor: RealmActor, userId: number, viewerIds: readonly number[]): void {
  if (viewerIds.length === 0) return;
  const person = inaccessibleUserView(actor.services.config, actor.realm, userId);
  const event = realmUserAddEvent(person);
  actor.events.publish((queue) => (hasCapability(queue, 'user_list_incomplete') ? null : event), viewerIds);
}

/**
 * A message of a direct conversation was committed. The first one makes its participants
 * direct-message partners; those who may not see everyone get a `realm_user` add for each
 * participant they did not see before (before the message itself, as in Zulip).
 */
export function noteDirectMessageSent(actor: RealmActor, conversation: Conversation): void {
  const { messaging } = actor.state;
  if (!conversation.userIds || messaging.hasDirectMessages(conversation.id)) return;
  const before = limitedSight(actor, conversation.userIds);
  messaging.noteDirectMessage(conversation);
  publishSightChanges(actor, before);
}
