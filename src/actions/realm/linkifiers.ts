// Realm linkifiers: organization administrators add, edit, remove and order them; every user
// gets them (register `realm_linkifiers`, GET /realm/linkifiers) and the renderer applies them
// to message content and topics (see topicLinks.ts).
import { ApiError } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { Linkifier, User } from '../../model/types.js';
import { deleteLinkifier, insertLinkifier, saveLinkifier, saveLinkifierOrder } from '../../db/linkifiers.js';
import { isValidUriTemplate, validateLinkifier } from '../../render/index.js';
import type { EventQueue } from '../../events/queue.js';
import { wantsLinkifierUrlTemplate } from '../../events/shape.js';
import { actingUser, requireAdmin } from '../../permissions/roles.js';
import { listLinkifiers } from '../../views/linkifiers.js';
import { realmLinkifiersEvent, realmFiltersEvent } from '../../events/catalog/index.js';

/** Zulip answers validation failures with the first message and every error by field. */
const invalid = (field: string, msg: string) => new ApiError('BAD_REQUEST', msg, 400, { errors: { [field]: [msg] } });
const notFound = () => new ApiError('BAD_REQUEST', 'Linkifier not found.', 400);

function checkLinkifier(actor: RealmActor, input: { pattern: string; urlTemplate: string }, exceptId = 0): Omit<Linkifier, 'id'> {
  const pattern = input.pattern.trim();
  const urlTemplate = input.urlTemplate.trim();
  if (pattern === '') throw invalid('pattern', 'This field cannot be blank.');
  if (urlTemplate === '') throw invalid('url_template', 'This field cannot be blank.');
  if (!isValidUriTemplate(urlTemplate)) throw invalid('url_template', 'Invalid URL template.');
  const check = validateLinkifier(pattern, urlTemplate);
  if (!check.ok) throw invalid('__all__', check.msg);
  if (actor.state.linkifiers.some((l) => l.id !== exceptId && l.pattern === pattern)) {
    throw invalid('__all__', 'Realm filter with this Realm and Pattern already exists.');
  }
  return { pattern, urlTemplate };
}

/**
 * Tells every user: clients that announced `linkifier_url_template` get `realm_linkifiers`;
 * older ones, which only know the `%(name)s` format, get the legacy event with an empty list
 * (as on Zulip: they cannot apply RFC 6570 templates).
 */
function publishLinkifiers(actor: RealmActor): void {
  const linkifiers = listLinkifiers(actor);
  actor.events.publish(
    (queue: EventQueue) =>
      wantsLinkifierUrlTemplate(queue)
        ? realmLinkifiersEvent(linkifiers)
        : realmFiltersEvent(),
    actor.state.activeUsers().map((u) => u.id),
  );
}

/** POST /realm/filters. */
export function addLinkifier(actor: RealmActor, acting: User, input: { pattern: string; urlTemplate: string }): Promise<Linkifier> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const checked = checkLinkifier(actor, input);
    const linkifier = await insertLinkifier(actor.sql, { realmId: actor.realm.id, ...checked });
    actor.state.linkifiers = [...actor.state.linkifiers, linkifier];
    publishLinkifiers(actor);
    return linkifier;
  });
}

/** PATCH /realm/filters/{filter_id}: a new pattern and URL template; the position stays. */
export function updateLinkifier(
  actor: RealmActor,
  acting: User,
  id: number,
  input: { pattern: string; urlTemplate: string },
): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    if (!actor.state.linkifiers.some((l) => l.id === id)) throw notFound();
    const next: Linkifier = { id, ...checkLinkifier(actor, input, id) };
    await saveLinkifier(actor.sql, actor.realm.id, next);
    actor.state.linkifiers = actor.state.linkifiers.map((l) => (l.id === id ? next : l));
    publishLinkifiers(actor);
  });
}

/** DELETE /realm/filters/{filter_id}. */
export function removeLinkifier(actor: RealmActor, acting: User, id: number): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    if (!actor.state.linkifiers.some((l) => l.id === id)) throw notFound();
    await deleteLinkifier(actor.sql, actor.realm.id, id);
    actor.state.linkifiers = actor.state.linkifiers.filter((l) => l.id !== id);
    publishLinkifiers(actor);
  });
}

/** PATCH /realm/linkifiers: `orderedIds` lists every linkifier once, in the new order. */
export function reorderLinkifiers(actor: RealmActor, acting: User, orderedIds: number[]): Promise<void> {
  return actor.exclusive(async () => {
    requireAdmin(actingUser(actor.state, acting));
    const wanted = new Set(orderedIds);
    if (wanted.size < orderedIds.length) {
      throw new ApiError('BAD_REQUEST', 'The ordered list must not contain duplicated linkifiers', 400);
    }
    const current = actor.state.linkifiers;
    if (wanted.size !== current.length || current.some((l) => !wanted.has(l.id))) {
      throw new ApiError('BAD_REQUEST', 'The ordered list must enumerate all existing linkifiers exactly once', 400);
    }
    if (current.length === 0) return;
    await saveLinkifierOrder(actor.sql, actor.realm.id, orderedIds);
    const byId = new Map(current.map((l) => [l.id, l]));
    actor.state.linkifiers = orderedIds.map((id) => byId.get(id)!);
    publishLinkifiers(actor);
  });
}
