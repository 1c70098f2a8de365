// Derived data a realm actor keeps between requests (the register's group list, a user's
// subscription log, authorization headers seen recently). Each cache is a field of the actor,
// made on first use from its key, so it lives and dies with the actor and moves nowhere.

/** Names a cache and says how to make it empty. */
export class CacheKey<T> {
  constructor(
    readonly name: string,
    readonly create: () => T,
  ) {}
}

export class RealmCaches {
  private readonly entries = new Map<CacheKey<unknown>, unknown>();

  get<T>(key: CacheKey<T>): T {
    let value = this.entries.get(key as CacheKey<unknown>) as T | undefined;
    if (value === undefined) {
      value = key.create();
      this.entries.set(key as CacheKey<unknown>, value);
    }
    return value;
  }
}
