// Bot storage (Zulip's zerver/lib/bot_storage.py): string keys and values a bot keeps between
// runs (zulip_bots' StateHandler). Each user has their own; the whole of it, keys and values
// counted in characters, may not exceed USER_STATE_SIZE_LIMIT. No events: only the owner reads it.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { actingUser } from '../../permissions/roles.js';
import { botStorageEntries, botStorageSize, deleteBotStorage, putBotStorage } from '../../db/personal.js';

export const USER_STATE_SIZE_LIMIT = 10_000_000;

const keyDoesNotExist = () => badRequest('Key does not exist.');

/** Characters as Zulip (and Postgres' char_length) count them: code points. */
function chars(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** GET /bot_storage: the given keys (every one must exist), or everything. */
export async function readBotStorage(actor: RealmActor, user: User, keys: string[] | undefined): Promise<Record<string, string>> {
  const current = actingUser(actor.state, user);
  const found = await botStorageEntries(actor.sql, current.id, keys ?? null);
  if (keys === undefined) return Object.fromEntries(found);
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = found.get(key);
    if (value === undefined) throw keyDoesNotExist();
    out[key] = value;
  }
  return out;
}

/** PUT /bot_storage: sets every entry, or none when the storage would grow past its limit. */
export function writeBotStorage(actor: RealmActor, user: User, storage: Record<string, string>): Promise<void> {
  const entries = Object.entries(storage);
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const existing = await botStorageEntries(actor.sql, current.id, entries.map(([k]) => k));
    let size = await botStorageSize(actor.sql, current.id);
    for (const [key, value] of entries) {
      const old = existing.get(key);
      size += chars(key) + chars(value) - (old === undefined ? 0 : chars(key) + chars(old));
    }
    if (size > USER_STATE_SIZE_LIMIT) {
      throw badRequest(`Request exceeds storage limit by ${size - USER_STATE_SIZE_LIMIT} characters. The limit is ${USER_STATE_SIZE_LIMIT} characters.`);
    }
    await putBotStorage(actor.sql, current.id, entries);
  });
}

/** DELETE /bot_storage: removes the given keys (every one must exist), or everything. */
export function removeBotStorage(actor: RealmActor, user: User, keys: string[] | undefined): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const all = keys === undefined;
    const found = await botStorageEntries(actor.sql, current.id, all ? null : keys);
    if (!all && new Set(keys).size > found.size) throw keyDoesNotExist();
    if (found.size) await deleteBotStorage(actor.sql, current.id, [...found.keys()]);
  });
}
