// A user's own settings for channels they are subscribed to (spec 2.4 and 4.4).
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Subscription, User } from '../../model/types.js';
import { saveSubscription } from '../../db/subscriptions.js';
import { channelForContent } from './channels.js';
import { HEX_COLOR_RE } from './subscriptions.js';
import { subscriptionUpdateEvent } from '../../events/catalog/index.js';

export interface PropertyChange {
  stream_id: number;
  property: string;
  value: boolean | string;
}

const BOOLEAN_PROPERTIES: Record<string, keyof Subscription> = {
  is_muted: 'isMuted',
  pin_to_top: 'pinToTop',
  desktop_notifications: 'desktopNotifications',
  audible_notifications: 'audibleNotifications',
  push_notifications: 'pushNotifications',
  email_notifications: 'emailNotifications',
  wildcard_mentions_notify: 'wildcardMentionsNotify',
};

function checkChange(c: PropertyChange): void {
  if (c.property === 'color') {
    if (typeof c.value !== 'string' || !HEX_COLOR_RE.test(c.value)) throw badRequest('color is not a valid hex color code');
  } else if (c.property === 'in_home_view' || c.property in BOOLEAN_PROPERTIES) {
    if (typeof c.value !== 'boolean') throw badRequest(`${c.property} is not a boolean`);
  } else {
    throw badRequest(`Unknown subscription property: ${c.property}`);
  }
}

/** Applies every change or none; each produces its update event (two for muting). */
export function changeSubscriptionProperties(actor: RealmActor, user: User, changes: PropertyChange[]): Promise<void> {
  return actor.exclusive(async () => {
    const { state } = actor;
    const updated = new Map<number, Subscription>();
    for (const c of changes) {
      checkChange(c);
      channelForContent(state, user, c.stream_id);
      const sub = updated.get(c.stream_id) ?? state.subscription(user.id, c.stream_id);
      if (!sub?.active) throw badRequest(`Not subscribed to channel ID ${c.stream_id}`);
      const next: Subscription = { ...sub };
      if (c.property === 'color') next.color = c.value as string;
      else if (c.property === 'in_home_view') next.isMuted = !(c.value as boolean);
      else (next as unknown as Record<string, unknown>)[BOOLEAN_PROPERTIES[c.property]!] = c.value;
      updated.set(c.stream_id, next);
    }
    await actor.sql.begin(async (tx) => {
      for (const sub of updated.values()) await saveSubscription(tx, sub);
    });
    for (const sub of updated.values()) state.putSubscription(sub);
    for (const c of changes) {
      if (c.property === 'is_muted' || c.property === 'in_home_view') {
        const muted = c.property === 'is_muted' ? (c.value as boolean) : !(c.value as boolean);
        // The in_home_view event is kept for older clients; both always go out.
        actor.events.publish(subscriptionUpdateEvent(c.stream_id, 'in_home_view', !muted), [user.id]);
        actor.events.publish(subscriptionUpdateEvent(c.stream_id, 'is_muted', muted), [user.id]);
      } else {
        actor.events.publish(subscriptionUpdateEvent(c.stream_id, c.property, c.value), [user.id]);
      }
    }
  });
}
