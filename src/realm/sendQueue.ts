// Group commit for sends. The realm actor checks sends one at a time; each checked send is
// queued here with its rows. While one batch's statement is in flight, the sends that arrive
// collect and go to the database together in the next statement, so sends per second are not
// bounded by one commit per send. A send is acknowledged only after its batch committed and
// its events were published. A batch whose session ended mid-write may have committed:
// its sends whose ids are stored are acknowledged, and only the others written again, so that
// none is stored twice.
import type { Sql } from '../db/connect.js';
import { insertMessageBatch, MESSAGE_ID_KEY, type FlagRow, type NewMessage, type UserTopicRow } from '../db/messages.js';
import { sessionLost, uniqueViolation } from '../db/failures.js';

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

/** Writes of one send after its batch lost its session, the first included. */
const WRITE_AGAIN_ATTEMPTS = 3;
/** Pauses after each failed question of which ids are stored. */
const LOOKUP_PAUSES_MS = [50, 200, 500];

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
    /** Which of these message ids are stored (read outside the batch's own connection). */
    private readonly storedIds: (ids: number[]) => Promise<Set<number>>,
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
        let again = batch;
        if (sessionLost(err)) {
          // The session ended during the write, which may have committed: what is stored is
          // acknowledged, the rest written again (see writeAgain).
          const stored = await this.storedSoon(batch.map((e) => e.send.message.id));
          if (stored === null) {
            for (const entry of batch) this.fail(entry, err);
            continue;
          }
          const done = batch.filter((e) => stored.has(e.send.message.id));
          if (done.length) this.finish(done);
          again = batch.filter((e) => !stored.has(e.send.message.id));
        } else if (batch.length === 1) {
          this.fail(batch[0]!, err);
          continue;
        }
        // One bad row must not fail the sends batched with it: retry them one by one.
        for (const entry of again) await this.writeAgain(entry, sessionLost(err));
      }
    }
  }

  /**
   * Writes one send of a failed batch again, under the id it was given. After a lost session,
   * a second row with that id means the first write did commit, only later than the check:
   * the send is then done. (Sent again to another process, which would give it a new id, it
   * would be stored twice.) A write again that loses its session too (the other connections
   * of the pool may have broken with the first) is checked the same way.
   */
  private async writeAgain(entry: Entry, afterLostSession: boolean): Promise<void> {
    const id = entry.send.message.id;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.write([entry.send]);
        return this.finish([entry]);
      } catch (e) {
        if (afterLostSession && uniqueViolation(e, MESSAGE_ID_KEY)) return this.finish([entry]);
        if (!sessionLost(e) || attempt >= WRITE_AGAIN_ATTEMPTS) return this.fail(entry, e);
        afterLostSession = true;
        const stored = await this.storedSoon([id]);
        if (stored === null) return this.fail(entry, e);
        if (stored.has(id)) return this.finish([entry]);
      }
    }
  }

  /**
   * Which of these ids are stored, asked again after a pause if asking fails (the pool's other
   * connections may have broken with the batch's); null when it cannot be known.
   */
  private async storedSoon(ids: number[]): Promise<Set<number> | null> {
    for (const pause of LOOKUP_PAUSES_MS) {
      try {
        return await this.storedIds(ids);
      } catch {
        await new Promise((r) => setTimeout(r, pause));
      }
    }
    return null;
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
