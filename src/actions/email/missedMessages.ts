// Missed-message emails, decided when a message commits: who was offline and would hear of it
// by email (Zulip's rules: direct messages and mentions with enable_offline_email_notifications,
// wildcard mentions where the user allows them, followed topics and channels the user asked
// emails for; never in muted places except personal mentions). Each such message joins the
// user's waiting batch; the batch's `missed-message-email` job runs when the user's
// email_notifications_batching_period_seconds is over and mails what is still unread.
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import type { MessageRecord } from '../../model/messageState.js';
import { Flag } from '../../db/flags.js';
import { userSettingValue } from '../../model/userSettings.js';
import { addPendingMissedMessages } from '../../db/missedMessages.js';
import { CacheKey } from '../../realm/caches.js';
import { isIdle, NOTIFICATION_KINDS, notificationTrigger } from '../messages/notifications.js';
import { emailEnabled } from './outbox.js';
import type { Recipients } from '../messages/recipientBits.js';

/** Why this message is emailed to this user, or null when it is not. */
export const emailTrigger = (actor: RealmActor, user: User, m: MessageRecord, flags: number) =>
  notificationTrigger(actor, user, m, flags, NOTIFICATION_KINDS.email);

/** One chain per realm, so that two messages to one user join the same batch. */
const batchChain = new CacheKey('missed-message batches', () => ({ tail: Promise.resolve() as Promise<unknown> }));

/** Called once a message committed (after its events): records the emails it causes. */
export function enqueueMissedMessageEmails(actor: RealmActor, m: MessageRecord, recipients: Recipients): void {
  const { services } = actor;
  if (!emailEnabled(services)) return;
  const targets: { user: User; trigger: string }[] = [];
  try {
    recipients.forEach((flags, userId) => {
      if (userId === m.senderId) return;
      const user = actor.state.users.get(userId);
      if (!user || !user.isActive || user.isBot) return;
      // Messages a user already has read (marked on send) or whose sender they muted are never missed.
      if (flags & Flag.READ || actor.state.mutedUsers.get(userId)?.has(m.senderId)) return;
      const trigger = emailTrigger(actor, user, m, flags);
      if (trigger === null || !isIdle(actor, userId)) return;
      targets.push({ user, trigger });
    });
  } catch (err) {
    services.log.error({ err, realm: actor.realm.stringId, message: m.id }, 'could not work out missed-message emails');
    return;
  }
  if (targets.length === 0) return;
  const realmId = actor.realm.id;
  const chain = actor.caches.get(batchChain);
  chain.tail = chain.tail.then(async () => {
    for (const { user, trigger } of targets) {
      try {
        const period = Number(userSettingValue(user.settings, 'email_notifications_batching_period_seconds'));
        const due = await addPendingMissedMessages(services.sql, realmId, user.id, [{ messageId: m.id, trigger }], period);
        // One job per batch: a message joining a waiting batch finds its job already queued.
        await services.jobs.enqueue(
          'missed-message-email',
          { realmId, userId: user.id },
          { delayMs: Math.max(0, due.getTime() - Date.now()), jobId: `missed-${user.id}-${due.getTime()}`, attempts: 3, backoffMs: 5000 },
        );
      } catch (err) {
        services.log.error({ err, realm: actor.realm.stringId, user: user.id, message: m.id }, 'could not queue a missed-message email');
      }
    }
  });
}
