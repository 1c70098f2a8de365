// When a user was subscribed to a channel, as message id ranges. Private channels with
// protected history (history_public_to_subscribers=false) show a user only the messages
// sent while they were subscribed.
import type { RealmActor } from '../realm/actor.js';
import { loadSubscriptionLog } from '../db/subscriptions.js';

export interface HistoryRange {
  /** First message id the user may read in this range (inclusive). */
  from: number;
  /** Last message id (inclusive); null while the user is still subscribed. */
  to: number | null;
}

/**
 * Message id ranges during which the user was subscribed, oldest first. A subscription taken
 * when the realm's newest message was N starts at N + 1; leaving when it was M ends at M.
 */
export async function historyRanges(actor: RealmActor, userId: number, streamId: number): Promise<HistoryRange[]> {
  const log = await loadSubscriptionLog(actor.sql, userId, streamId);
  const ranges: HistoryRange[] = [];
  let open: HistoryRange | null = null;
  for (const entry of log) {
    if (entry.event === 'subscribed' && !open) {
      open = { from: entry.messageIdAt + 1, to: null };
    } else if (entry.event === 'unsubscribed' && open) {
      open.to = entry.messageIdAt;
      if (open.to >= open.from) ranges.push(open);
      open = null;
    }
  }
  if (open) ranges.push(open);
  return ranges;
}
