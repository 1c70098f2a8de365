// PATCH /users/me/subscriptions (Zulip's update_subscriptions_backend): the caller's own
// subscriptions added and removed in one request, answered with both results merged.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { canAccessChannelMetadata } from '../../permissions/channelAccess.js';
import { streamDoesNotExist } from './channels.js';
import { subscribe, unsubscribe } from './subscriptions.js';

export interface ChannelToAdd {
  name: string;
  description?: string;
  color?: string;
}

export async function updateOwnSubscriptions(actor: RealmActor, user: User, add: ChannelToAdd[], remove: string[]): Promise<Record<string, unknown>> {
  if (add.length === 0 && remove.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  // Zulip runs both halves in one transaction: a channel to leave that does not exist fails
  // the request before anything is added.
  for (const raw of remove) {
    const stream = actor.state.streamByName(raw.trim());
    if (!stream || !canAccessChannelMetadata(actor.state, user, stream)) throw streamDoesNotExist(raw.trim());
  }
  const added = add.length
    ? await subscribe(actor, user, {
        subscriptions: add,
        authorizationErrorsFatal: true,
        inviteOnly: false,
        isWebPublic: false,
        isDefaultStream: false,
        messageRetentionDays: 'realm_default',
        groupSettings: {},
      })
    : { subscribed: {}, already_subscribed: {} };
  const removed = remove.length ? await unsubscribe(actor, user, remove, undefined) : { removed: [], not_removed: [] };
  return { ...added, ...removed };
}
