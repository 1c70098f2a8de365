// RealmState: the realm's data held in memory, with the indexes requests need.
import { createHash } from 'node:crypto';
import type { RealmRecord, User, UserGroup } from './types.js';

export const apiKeyDigest = (key: string) => createHash('sha256').update(key).digest('hex');

export class RealmState {
  readonly users = new Map<number, User>();
  private readonly byEmail = new Map<string, User>();
  private readonly byKeyDigest = new Map<string, User>();
  readonly groups = new Map<number, UserGroup>();

  constructor(public realm: RealmRecord) {}

  userByEmail(email: string): User | undefined {
    return this.byEmail.get(email.toLowerCase());
  }

  /** Looks a user up by the digest of an API key; the caller compares the key itself. */
  userByApiKey(key: string): User | undefined {
    return this.byKeyDigest.get(apiKeyDigest(key));
  }

  /** Inserts or replaces a user, keeping every index in step. */
  putUser(user: User): void {
    const old = this.users.get(user.id);
    if (old) {
      this.byEmail.delete(old.deliveryEmail.toLowerCase());
      this.byKeyDigest.delete(apiKeyDigest(old.apiKey));
    }
    this.users.set(user.id, user);
    this.byEmail.set(user.deliveryEmail.toLowerCase(), user);
    this.byKeyDigest.set(apiKeyDigest(user.apiKey), user);
  }

  groupByName(name: string): UserGroup | undefined {
    for (const g of this.groups.values()) if (g.name === name) return g;
    return undefined;
  }

  activeUsers(): User[] {
    return [...this.users.values()].filter((u) => u.isActive);
  }
}
