// A user's missed-message batch coming due: what is still unread of it is mailed, one email
// per conversation, each with a Reply-To address of the gateway (EMAIL_GATEWAY_DOMAIN) that
// posts a reply into that conversation as this user. Works from the database alone, so any
// worker may run it. The batch's rows, the reply addresses and the outbox rows change in one
// transaction: a failed try leaves the batch for the next.
import { randomBytes } from 'node:crypto';
import type { JobDefinition } from '../../jobs/types.js';
import type { MissedMessageEmailJob } from '../../jobs/payloads.js';
import { Flag } from '../../db/flags.js';
import { findRealmById } from '../../db/realms.js';
import { loadUser } from '../../db/users.js';
import { insertMissedMessageAddress, loadMissedMessageDetails, takeDueMissedMessages, userNames, type MissedMessageDetail } from '../../db/missedMessages.js';
import { insertOutgoingEmail } from '../../db/emailOutbox.js';
import { userSettingValue } from '../../model/userSettings.js';
import { conversationKey, missedMessageEmail } from '../../views/emails/missedMessages.js';
import { messageIdDomain, queueOutboxSend } from '../../actions/email/outbox.js';
import type { WorkerJobDeps } from './deps.js';

/** Zulip's reply addresses: "mm" and a random token, at the gateway's domain. */
export const missedMessageAddress = (token: string, domain: string) => `mm${token}@${domain}`;

export const missedMessageEmailJob: JobDefinition<MissedMessageEmailJob, WorkerJobDeps> = {
  attempts: 3,
  backoffMs: 5000,
  async run(job, { deps, log }) {
    const { sql, config } = deps;
    const realm = await findRealmById(sql, job.realmId);
    const user = await loadUser(sql, job.realmId, job.userId);
    const outboxIds = await sql.begin(async (tx) => {
      const taken = await takeDueMissedMessages(tx, job.userId);
      if (taken.length === 0 || !realm || realm.deactivated || !user || !user.isActive || !deps.mailer) return [];
      // Read since (or deleted): nothing to tell. No flag row means no flag set.
      const unread = (await loadMissedMessageDetails(tx, job.userId, taken.map((t) => t.messageId))).filter(
        (m) => ((m.flags ?? 0) & Flag.READ) === 0,
      );
      const groups = new Map<string, MissedMessageDetail[]>();
      for (const m of unread) groups.set(conversationKey(m), [...(groups.get(conversationKey(m)) ?? []), m]);
      const names = await userNames(tx, [...new Set(unread.flatMap((m) => m.userIds ?? []))]);
      const includeContent = userSettingValue(user.settings, 'message_content_in_email_notifications') !== false;
      const ids: number[] = [];
      for (const messages of groups.values()) {
        let replyTo: string | null = null;
        if (config.EMAIL_GATEWAY_DOMAIN) {
          const token = randomBytes(16).toString('hex');
          const last = messages[messages.length - 1]!;
          await insertMissedMessageAddress(tx, token, realm.id, user.id, last.id);
          replyTo = missedMessageAddress(token, config.EMAIL_GATEWAY_DOMAIN);
        }
        const email = missedMessageEmail({ config, realm, userId: user.id, messages, names, includeContent, replyTo });
        const id = await insertOutgoingEmail(
          tx,
          { realmId: realm.id, kind: 'missed_messages', to: user.deliveryEmail, fromName: realm.name, replyTo, ...email },
          messageIdDomain(config),
        );
        ids.push(id);
      }
      return ids;
    });
    for (const id of outboxIds) await queueOutboxSend(deps.registry.services, id);
    if (outboxIds.length > 0) log.debug({ user: job.userId, emails: outboxIds.length }, 'missed-message emails queued');
  },
};
