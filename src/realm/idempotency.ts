// Idempotency keys of sends (the Idempotency-Key header): the result of the first send with a
// key, remembered for a while per user. Covers retries that race the first attempt; the key is
// also stored on the message row for retries after a restart (see actions/messages/idempotency).

const REMEMBER_MS = 24 * 3600 * 1000;
const MAX_REMEMBERED = 50_000;

interface Remembered<R> {
  result: Promise<R>;
  at: number;
}

export class IdempotencyKeys<R> {
  private readonly keys = new Map<string, Remembered<R>>();

  /** The result of an earlier send with this key from this user, if one is remembered. */
  get(userId: number, key: string): Promise<R> | undefined {
    this.expire();
    return this.keys.get(`${userId}\n${key}`)?.result;
  }

  /** Remembers a send's result; a send that fails is forgotten, so a retry tries again. */
  remember(userId: number, key: string, result: Promise<R>): void {
    const mapKey = `${userId}\n${key}`;
    this.keys.set(mapKey, { result, at: Date.now() });
    result.catch(() => this.keys.delete(mapKey));
  }

  private expire(): void {
    const now = Date.now();
    // Insertion order is age order: drop from the front.
    for (const [k, v] of this.keys) {
      if (now - v.at < REMEMBER_MS && this.keys.size <= MAX_REMEMBERED) break;
      this.keys.delete(k);
    }
  }
}
