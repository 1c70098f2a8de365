// Users coming into and going out of the sight of viewers who may not see everyone (guests,
// when the realm limits what guests see): subscriptions decide what they see, so a
// subscription change tells them which users they gained (`realm_user` add) and lost
// (`realm_user` remove), as Zulip's send_user_creation_events_on_adding_subscriptions and
// send_user_remove_events_on_removing_subscriptions do.
import type { RealmActor } from '../../realm/actor.js';
import { canAccessAllUsers, canAccessUser } from '../../permissions/userAccess.js';
import { formatUser } from '../../views/users.js';
import { realmUserAddEvent } from '../../events/catalog/index.js';
import { publishRealmUserRemove } from './events.js';

/** For each viewer who may not see everyone, the users they see; empty when there are none. */
export function limitedSight(actor: RealmActor): Map<number, Set<number>> {
  const { state } = actor;
  const out = new Map<number, Set<number>>();
  for (const viewer of state.activeUsers()) {
    if (canAccessAllUsers(state, viewer)) continue;
    const seen = new Set<number>();
    for (const u of state.users.values()) if (canAccessUser(state, viewer, u)) seen.add(u.id);
    out.set(viewer.id, seen);
  }
  return out;
}

/** Tells each limited viewer of `before` who came into and went out of their sight since. */
export function publishSightChanges(actor: RealmActor, before: Map<number, Set<number>>): void {
  const { state } = actor;
  const { config } = actor.services;
  for (const [viewerId, was] of before) {
    const viewer = state.users.get(viewerId);
    if (!viewer?.isActive) continue;
    for (const u of state.users.values()) {
      const sees = canAccessUser(state, viewer, u);
      if (sees && !was.has(u.id)) {
        actor.events.publish((queue) => realmUserAddEvent(formatUser(config, actor.realm, viewer, u, { clientGravatar: queue.opts.clientGravatar })), [viewerId]);
      } else if (!sees && was.has(u.id)) {
        publishRealmUserRemove(actor, u, [viewerId]);
      }
    }
  }
}
