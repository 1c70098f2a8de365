// The receiving users of a message with their flag bits. A channel's message goes to every
// active subscriber, and nearly all of them get the same bits: the list of users is the
// channel's own (kept between sends until a subscription changes, see send.ts), and only the
// users whose bits differ (mentioned, alert words, muted sender, the sender) are listed with
// theirs. A Map of every recipient, made per send, cost a channel of 10,000 subscribers some
// 0.5 MB per message, kept until the message was committed and published.

/** What readers of a message's recipients ask (they do not change anyone's bits). */
export interface Recipients {
  readonly size: number;
  has(userId: number): boolean;
  /** The user's bits; undefined when the user does not receive the message. */
  get(userId: number): number | undefined;
  /** Every recipient with their bits, in order. */
  forEach(fn: (bits: number, userId: number) => void): void;
}

export class RecipientBits implements Recipients {
  /** Bits that differ from 0, by user. */
  private readonly own = new Map<number, number>();
  /** Bits every recipient has on top of their own (a channel wildcard mention). */
  private common = 0;

  /**
   * @param userIds the recipients, the sender among them or not; never changed here
   * @param members the same users as a set
   * @param senderId the sender, who always receives the message (first, in forEach)
   */
  constructor(
    private readonly userIds: readonly number[],
    private readonly members: ReadonlySet<number>,
    private readonly senderId: number,
  ) {}

  get size(): number {
    return this.userIds.length + (this.members.has(this.senderId) ? 0 : 1);
  }

  has(userId: number): boolean {
    return userId === this.senderId || this.members.has(userId);
  }

  get(userId: number): number | undefined {
    return this.has(userId) ? (this.own.get(userId) ?? 0) | this.common : undefined;
  }

  /** Adds bits to a recipient's own; a user who does not receive the message is left out. */
  add(userId: number, bit: number): void {
    if (this.has(userId)) this.own.set(userId, (this.own.get(userId) ?? 0) | bit);
  }

  /** Adds bits to every recipient's. */
  addToAll(bit: number): void {
    this.common |= bit;
  }

  /** The recipients whose own bits are not 0, with them (the common bits left out). */
  ownBits(): ReadonlyMap<number, number> {
    return this.own;
  }

  forEach(fn: (bits: number, userId: number) => void): void {
    const { userIds, senderId, own, common } = this;
    fn((own.get(senderId) ?? 0) | common, senderId);
    for (let i = 0; i < userIds.length; i++) {
      const id = userIds[i]!;
      if (id !== senderId) fn((own.get(id) ?? 0) | common, id);
    }
  }
}
