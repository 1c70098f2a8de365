// Alert words: per-user words that flag a message containing them (`has_alert_word`). Stored
// in Postgres, held in memory (state.alertWords) for the message path, announced to the user.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { deleteAlertWords, insertAlertWords } from '../../db/alertWords.js';
import { MAX_ALERT_WORD_LENGTH } from '../../model/limits.js';
import { alertWordsEvent } from '../../events/catalog/index.js';

/** Trims the words and drops empty ones; an over-long word is an error. */
export function cleanAlertWords(words: string[]): string[] {
  words.forEach((w, i) => {
    if (w.length > MAX_ALERT_WORD_LENGTH) {
      throw badRequest(`alert_words[${i}] is too long (limit: ${MAX_ALERT_WORD_LENGTH} characters)`);
    }
  });
  return words.map((w) => w.trim()).filter((w) => w !== '');
}

export function alertWordsOf(actor: RealmActor, user: User): string[] {
  return [...(actor.state.alertWords.get(user.id) ?? [])];
}

function announce(actor: RealmActor, user: User, words: string[]): void {
  actor.events.publish(alertWordsEvent(words), [user.id]);
}

/** Adds words not already present (compared without case); the first spelling is kept. */
export function addAlertWords(actor: RealmActor, user: User, raw: string[]): Promise<string[]> {
  const words = cleanAlertWords(raw);
  return actor.exclusive(async () => {
    const current = actor.state.alertWords.get(user.id) ?? [];
    const seen = new Set(current.map((w) => w.toLowerCase()));
    const added: string[] = [];
    for (const w of words) {
      if (seen.has(w.toLowerCase())) continue;
      seen.add(w.toLowerCase());
      added.push(w);
    }
    if (added.length === 0) return [...current];
    await insertAlertWords(actor.sql, actor.realm.id, user.id, added);
    const next = [...current, ...added];
    actor.state.alertWords.set(user.id, next);
    announce(actor, user, [...next]);
    return [...next];
  });
}

/** Removes words (compared without case); words the user does not have are ignored. */
export function removeAlertWords(actor: RealmActor, user: User, raw: string[]): Promise<string[]> {
  const words = cleanAlertWords(raw);
  return actor.exclusive(async () => {
    const current = actor.state.alertWords.get(user.id) ?? [];
    const gone = new Set(words.map((w) => w.toLowerCase()));
    const next = current.filter((w) => !gone.has(w.toLowerCase()));
    if (next.length === current.length) return [...current];
    await deleteAlertWords(actor.sql, user.id, words);
    if (next.length) actor.state.alertWords.set(user.id, next);
    else actor.state.alertWords.delete(user.id);
    announce(actor, user, [...next]);
    return [...next];
  });
}
