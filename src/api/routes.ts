// The route table: every endpoint under /api/v1, also served under /json for the web client.
// The worker matches paths against it and runs the handlers.
import type { Endpoint } from './endpoint.js';
import { authEndpoints } from './auth.js';
import { eventEndpoints } from './events.js';
import { settingsEndpoints } from './settings.js';
import { typingEndpoints } from './typing.js';
import { presenceEndpoints } from './presence.js';
import { alertWordEndpoints } from './alert_words.js';
import { serverSettingsEndpoints } from './server_settings.js';
import { userEndpoints } from './users.js';
import { realmEndpoints } from './realm.js';
import { userGroupEndpoints } from './user_groups.js';
import { userAdminEndpoints } from './users_admin.js';
import { botEndpoints } from './bots.js';
import { inviteEndpoints } from './invites.js';
import { emailEndpoints } from './email.js';
import { channelFolderEndpoints } from './channel_folders.js';
import { profileFieldEndpoints } from './profile_fields.js';
import { pushEndpoints } from './push.js';
import { channelEndpoints } from './channels.js';
import { subscriptionEndpoints } from './subscriptions.js';
import { messageEndpoints } from './messages.js';
import { flagEndpoints } from './flags.js';
import { reactionEndpoints } from './reactions.js';
import { topicEndpoints } from './topics.js';
import { linkifierEndpoints } from './linkifiers.js';
import { playgroundEndpoints } from './playgrounds.js';
import { renderEndpoints } from './render.js';
import { externalEndpoints } from './external.js';
import { scheduledMessageEndpoints } from './scheduled_messages.js';
import { draftEndpoints } from './drafts.js';
import { sessionEndpoints } from './session.js';
import { personalEndpoints } from './personal.js';
import { messageExtraEndpoints } from './message_extras.js';
import { subscriptionChangeEndpoints } from './subscription_changes.js';
import { pushTestEndpoints } from './push_test.js';
import { fileEndpoints, uploadEndpoints } from './uploads.js';
import { compilePattern, matchPattern, specificity, splitPath, type CompiledPattern } from '../http/match.js';

export const endpoints: Endpoint[] = [
  ...authEndpoints,
  ...serverSettingsEndpoints,
  ...userEndpoints,
  ...realmEndpoints,
  ...userGroupEndpoints,
  ...userAdminEndpoints,
  ...botEndpoints,
  ...inviteEndpoints,
  ...emailEndpoints,
  ...channelFolderEndpoints,
  ...profileFieldEndpoints,
  ...pushEndpoints,
  ...channelEndpoints,
  ...subscriptionEndpoints,
  ...messageEndpoints,
  ...flagEndpoints,
  ...reactionEndpoints,
  ...topicEndpoints,
  ...eventEndpoints,
  ...settingsEndpoints,
  ...typingEndpoints,
  ...presenceEndpoints,
  ...alertWordEndpoints,
  ...linkifierEndpoints,
  ...playgroundEndpoints,
  ...renderEndpoints,
  ...externalEndpoints,
  ...scheduledMessageEndpoints,
  ...draftEndpoints,
  ...sessionEndpoints,
  ...personalEndpoints,
  ...messageExtraEndpoints,
  ...subscriptionChangeEndpoints,
  ...pushTestEndpoints,
  ...uploadEndpoints,
];

interface RouteGroup {
  pattern: CompiledPattern;
  /** Each endpoint with its own pattern: endpoints of one shape may name their parameters differently. */
  byMethod: Map<string, { endpoint: Endpoint; pattern: CompiledPattern }>;
}

export type RouteMatch =
  | { kind: 'found'; endpoint: Endpoint; pathParams: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class RouteTable {
  private readonly groups: RouteGroup[] = [];
  /**
   * Routes of paths without parameters (`/users/me`, `/events`, `/messages`) by method and
   * path: most requests go to a few of these, and matching walks the whole table.
   */
  private readonly staticRoutes = new Map<string, Endpoint>();

  constructor(list: Endpoint[]) {
    const byShape = new Map<string, RouteGroup>();
    for (const ep of list) {
      const pattern = compilePattern(ep.path);
      let group = byShape.get(pattern.shape);
      if (!group) byShape.set(pattern.shape, (group = { pattern, byMethod: new Map() }));
      if (group.byMethod.has(ep.method)) throw new Error(`Duplicate route ${ep.method} ${ep.path}`);
      group.byMethod.set(ep.method, { endpoint: ep, pattern });
      if (pattern.segments.every((seg) => seg.literal !== undefined)) this.staticRoutes.set(`${ep.method} ${ep.path}`, ep);
    }
    this.groups = [...byShape.values()].sort((a, b) => specificity(b.pattern).localeCompare(specificity(a.pattern)));
  }

  match(method: string, path: string): RouteMatch {
    const known = this.staticRoutes.get(`${method} ${path}`);
    if (known) return { kind: 'found', endpoint: known, pathParams: NO_PARAMS };
    const parts = splitPath(path);
    for (const group of this.groups) {
      if (!matchPattern(group.pattern, parts)) continue;
      const entry = group.byMethod.get(method);
      if (!entry) return { kind: 'method_not_allowed', allowed: [...group.byMethod.keys()] };
      return { kind: 'found', endpoint: entry.endpoint, pathParams: matchPattern(entry.pattern, parts)! };
    }
    return { kind: 'not_found' };
  }
}

export const routeTable = new RouteTable(endpoints);

/** The files under /user_uploads/ (requests with the `file` prefix): a table of their own. */
export const fileRouteTable = new RouteTable(fileEndpoints);
