// The route table: every endpoint under /api/v1. The front tier matches paths against it;
// the worker runs the handlers.
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
];

interface RouteGroup {
  pattern: CompiledPattern;
  byMethod: Map<string, Endpoint>;
}

export type RouteMatch =
  | { kind: 'found'; endpoint: Endpoint; pathParams: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

export class RouteTable {
  private readonly groups: RouteGroup[] = [];
  private readonly byKey = new Map<string, Endpoint>();

  constructor(list: Endpoint[]) {
    const byShape = new Map<string, RouteGroup>();
    for (const ep of list) {
      const pattern = compilePattern(ep.path);
      let group = byShape.get(pattern.shape);
      if (!group) byShape.set(pattern.shape, (group = { pattern, byMethod: new Map() }));
      if (group.byMethod.has(ep.method)) throw new Error(`Duplicate route ${ep.method} ${ep.path}`);
      group.byMethod.set(ep.method, ep);
      this.byKey.set(`${ep.method} ${ep.path}`, ep);
    }
    this.groups = [...byShape.values()].sort((a, b) => specificity(b.pattern).localeCompare(specificity(a.pattern)));
  }

  match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    for (const group of this.groups) {
      const params = matchPattern(group.pattern, parts);
      if (!params) continue;
      const ep = group.byMethod.get(method);
      if (!ep) return { kind: 'method_not_allowed', allowed: [...group.byMethod.keys()] };
      // Each endpoint names its own path parameters.
      return { kind: 'found', endpoint: ep, pathParams: matchPattern(compilePattern(ep.path), parts)! };
    }
    return { kind: 'not_found' };
  }

  byRoute(method: string, route: string): Endpoint | undefined {
    return this.byKey.get(`${method} ${route}`);
  }
}

export const routeTable = new RouteTable(endpoints);
