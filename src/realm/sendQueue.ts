// Group commit for sends. The realm actor checks sends one at a time; each checked send is
// queued here with its rows. While one batch's statement is in flight, the sends that arrive
// collect and go to the database together in the next statement, so sends per second are not
// bounded by one commit per send. A send is acknowledged only after its batch committed and
// its events were published.
import type { Sql } from '../db/connect.js';
import { insertMessageBatch, type FlagRow, type NewMessage, type UserTopicRow } from '../db/messages.js';

export interface PreparedSend {
  message: NewMessage;
  flags: FlagRow[];
  userTopics: UserTopicRow[];
  /** A channel whose first message this is (its first_message_id is set in the same statement). */
  firstInStreamId: number | null;
  /** After the commit: publishes the events. */
  afterCommit(): void;
  /** After a failed write: undoes what the send changed in memory when it was queued. */
  undo(): void;
}

/** What the send queues of a process have done since it started (exported as metrics). */
export interface SendCounters {
  /** Sends committed (and announced). */
  messagesCommitted: number;
  /** Batch statements run, failed ones included (a failed batch retried one by one adds one per try). */
  batches: number;
  /** Time the batch statements took, summed, in seconds. */
  commitSeconds: number;
  /** Sends whose write failed. */
  sendsFailed: number;
}

interface Entry {
  send: PreparedSend;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class SendQueue {
  private pending: Entry[] = [];
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly counters?: SendCounters,
  ) {}

  /** Queues a checked send; resolves once it is committed and announced. */
  submit(send: PreparedSend): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ send, resolve, reject });
      this.kick();
    });
  }

  /** Starts a flush unless one runs; a send queued while one was finishing starts the next. */
  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.flush().finally(() => {
      this.flushing = null;
      if (this.pending.length > 0) this.kick();
    });
  }

  /** Nothing queued and nothing being written. */
  get idle(): boolean {
    return this.pending.length === 0 && this.flushing === null;
  }

  private async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0);
      try {
        await this.write(batch.map((e) => e.send));
        this.finish(batch);
      } catch (err) {
        if (batch.length === 1) {
          this.fail(batch[0]!, err);
          continue;
        }
        // One bad row must not fail the sends batched with it: retry them one by one.
        for (const entry of batch) {
          try {
            await this.write([entry.send]);
            this.finish([entry]);
          } catch (e) {
            this.fail(entry, e);
          }
        }
      }
    }
  }

  private async write(sends: PreparedSend[]): Promise<void> {
    const started = performance.now();
    try {
      await this.insert(sends);
    } finally {
      if (this.counters) {
        this.counters.batches++;
        this.counters.commitSeconds += (performance.now() - started) / 1000;
      }
    }
  }

  private insert(sends: PreparedSend[]): Promise<void> {
    return insertMessageBatch(
      this.sql,
      sends.map((s) => s.message),
      sends.flatMap((s) => s.flags),
      sends.flatMap((s) => s.userTopics),
      sends.flatMap((s) => (s.firstInStreamId === null ? [] : [{ streamId: s.firstInStreamId, messageId: s.message.id }])),
    );
  }

  private finish(entries: Entry[]): void {
    if (this.counters) this.counters.messagesCommitted += entries.length;
    for (const entry of entries) {
      try {
        entry.send.afterCommit();
        entry.resolve();
      } catch (err) {
        entry.reject(err);
      }
    }
  }

  private fail(entry: Entry, err: unknown): void {
    if (this.counters) this.counters.sendsFailed++;
    entry.send.undo();
    entry.reject(err);
  }
}
