// Navigation views: the web app's left-sidebar views a user pins or hides, built-in ones by
// their fragment and the user's own with a name (Zulip's zerver/views/navigation_views.py).
import { badRequest, notFound } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import type { User } from '../../model/types.js';
import { BUILT_IN_VIEW_FRAGMENTS, type NavigationView } from '../../model/later.js';
import { actingUser } from '../../permissions/roles.js';
import { deleteNavigationView, insertNavigationView, navigationViewsOf, updateNavigationView } from '../../db/navigationViews.js';
import { formatNavigationView } from '../../views/later.js';
import { navigationViewAddEvent, navigationViewRemoveEvent, navigationViewUpdateEvent, type NavigationViewChange } from '../../events/catalog/index.js';

const builtInNamed = () => badRequest('Built-in views cannot have a custom name.');
const alreadyExists = () => badRequest('Navigation view already exists.');
const viewDoesNotExist = () => notFound('Navigation view does not exist.');

/** POST /navigation_views (fragment and name already trimmed, neither empty). */
export function addNavigationView(actor: RealmActor, user: User, input: { fragment: string; isPinned: boolean; name?: string }): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    if (BUILT_IN_VIEW_FRAGMENTS.has(input.fragment)) {
      if (input.name !== undefined) throw builtInNamed();
    } else if (!input.name) {
      throw badRequest('Custom views must have a valid name.');
    }
    const views = await navigationViewsOf(actor.sql, current.id);
    if (views.some((v) => v.fragment === input.fragment)) throw alreadyExists();
    if (input.name !== undefined && views.some((v) => v.name === input.name)) throw alreadyExists();
    const view = await insertNavigationView(actor.sql, actor.realm.id, current.id, { fragment: input.fragment, isPinned: input.isPinned, name: input.name ?? null });
    actor.events.publish(navigationViewAddEvent(formatNavigationView(view)), [current.id]);
  });
}

/** PATCH /navigation_views/{fragment}: the event names what the request set. */
export function editNavigationView(actor: RealmActor, user: User, fragment: string, change: { isPinned?: boolean; name?: string }): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    if (BUILT_IN_VIEW_FRAGMENTS.has(fragment) && change.name !== undefined) throw builtInNamed();
    const views = await navigationViewsOf(actor.sql, current.id);
    if (change.name !== undefined && views.some((v) => v.name === change.name)) throw alreadyExists();
    const view: NavigationView | undefined = views.find((v) => v.fragment === fragment);
    if (!view) throw viewDoesNotExist();
    const data: NavigationViewChange = {};
    if (change.name !== undefined) data.name = change.name;
    if (change.isPinned !== undefined) data.is_pinned = change.isPinned;
    await updateNavigationView(actor.sql, view.id, change.isPinned ?? view.isPinned, change.name ?? view.name);
    actor.events.publish(navigationViewUpdateEvent(fragment, data), [current.id]);
  });
}

/** DELETE /navigation_views/{fragment}. */
export function removeNavigationView(actor: RealmActor, user: User, fragment: string): Promise<void> {
  return actor.exclusive(async () => {
    const current = actingUser(actor.state, user);
    const view = (await navigationViewsOf(actor.sql, current.id)).find((v) => v.fragment === fragment);
    if (!view) throw viewDoesNotExist();
    await deleteNavigationView(actor.sql, view.id);
    actor.events.publish(navigationViewRemoveEvent(fragment), [current.id]);
  });
}
