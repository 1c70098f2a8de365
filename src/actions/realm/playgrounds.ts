// Code playgrounds: organization administrators add and remove them; clients offer "view in
// playground" on code blocks of the playground's language.
import { ApiError } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { CodePlayground, User } from '../../model/types.js';
import { deletePlayground, insertPlayground } from '../../db/playgrounds.js';
import { isValidUriTemplate, validatePlaygroundTemplate } from '../../render/index.js';
import { actingUser, requireAdmin } from '../../permissions/roles.js';
import { listPlaygrounds } from '../../views/playgrounds.js';
import { realmPlaygroundsEvent } from '../../events/catalog/index.js';

/** Zulip's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;
/**
 * Zulip sets no limit on a playground's name, but indexes it: a name past an index row's size
 * fails in the database. Ours stops well before that, with the wording of its other limits.
 */
export const MAX_PLAYGROUND_NAME_LENGTH = 100;
// Zulip's characters for a code block language (Pygments names, and custom ones).
const LANGUAGE_CHARS = /^[ a-zA-Z0-9_+,\-./#]*$/;
const LANGUAGE = /^[a-zA-Z0-9_+,\-./#]+$/;

const invalid = (field: string, msg: string) => new ApiError('BAD_REQUEST', msg, 400, { errors: { [field]: [msg] } });

function checkPlayground(
  actor: RealmActor,
  input: { name: string; pygmentsLanguage: string; urlTemplate: string },
): Omit<CodePlayground, 'id'> {
  if (input.pygmentsLanguage.length > MAX_PYGMENTS_LANGUAGE_LENGTH) {
    throw new ApiError('BAD_REQUEST', `pygments_language is too long (limit: ${MAX_PYGMENTS_LANGUAGE_LENGTH} characters)`, 400);
  }
  if (input.name.length > MAX_PLAYGROUND_NAME_LENGTH) {
    throw new ApiError('BAD_REQUEST', `name is too long (limit: ${MAX_PLAYGROUND_NAME_LENGTH} characters)`, 400);
  }
  if (!LANGUAGE_CHARS.test(input.pygmentsLanguage)) throw new ApiError('BAD_REQUEST', 'Invalid characters in pygments language', 400);
  const name = input.name.trim();
  const pygmentsLanguage = input.pygmentsLanguage.trim();
  const urlTemplate = input.urlTemplate.trim();
  if (name === '') throw invalid('name', 'This field cannot be blank.');
  if (pygmentsLanguage === '') throw invalid('pygments_language', 'This field cannot be blank.');
  if (!LANGUAGE.test(pygmentsLanguage)) throw invalid('pygments_language', 'Invalid characters in pygments language');
  if (urlTemplate === '') throw invalid('url_template', 'This field cannot be blank.');
  if (!isValidUriTemplate(urlTemplate)) throw invalid('url_template', 'Invalid URL template.');
  const check = validatePlaygroundTemplate(urlTemplate);
  if (!check.ok) throw invalid('__all__', check.msg);
  for (const p of actor.state.playgrounds.values()) {
    if (p.name === name && p.pygmentsLanguage === pygmentsLanguage) {
      throw invalid('__all__', 'Realm playground with this Realm, Pygments language and Name already exists.');
    }
  }
  return { name, pygmentsLanguage, urlTemplate };
}

function publishPlaygrounds(actor: RealmActor): void {
  actor.events.publish(
    realmPlaygroundsEvent(listPlaygrounds(actor)),
    actor.state.activeUsers().map((u) => u.id),
  );
}

/** POST /realm/playgrounds. */
export function addPlayground(
  actor: RealmActor,
  acting: User,
  input: { name: string; pygmentsLanguage: string; urlTemplate: string },
): Promise<CodePlayground> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const checked = checkPlayground(actor, input);
    const playground = await insertPlayground(actor.sql, { realmId: actor.realm.id, ...checked });
    actor.state.playgrounds.set(playground.id, playground);
    publishPlaygrounds(actor);
    return playground;
  });
}

/** DELETE /realm/playgrounds/{playground_id}. */
export function removePlayground(actor: RealmActor, acting: User, id: number): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    if (!actor.state.playgrounds.has(id)) throw new ApiError('BAD_REQUEST', 'Invalid playground', 400);
    await deletePlayground(actor.sql, actor.realm.id, id);
    actor.state.playgrounds.delete(id);
    publishPlaygrounds(actor);
  });
}
