// Linkifiers: add, list (current and legacy forms), edit, remove, reorder.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { addLinkifier, removeLinkifier, reorderLinkifiers, updateLinkifier } from '../actions/realm/linkifiers.js';
import { legacyFilterTuples, listLinkifiers } from '../views/linkifiers.js';

export const linkifierEndpoints = [
  endpoint({
    method: 'POST',
    path: '/realm/filters',
    auth: 'user',
    params: { pattern: p.string(), url_template: p.string() },
    async handler({ actor, user, args }) {
      const linkifier = await addLinkifier(actor, user, { pattern: args.pattern, urlTemplate: args.url_template });
      return { id: linkifier.id };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/realm/linkifiers',
    auth: 'user',
    params: {},
    async handler({ actor }) {
      return { linkifiers: listLinkifiers(actor) };
    },
  }),
  endpoint({
    // Clients older than feature level 54 list linkifiers here, as tuples.
    method: 'GET',
    path: '/realm/filters',
    auth: 'user',
    params: {},
    async handler({ actor }) {
      return { filters: legacyFilterTuples(actor) };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/realm/filters/{filter_id}',
    auth: 'user',
    params: { filter_id: p.int(), pattern: p.string(), url_template: p.string() },
    async handler({ actor, user, args }) {
      await updateLinkifier(actor, user, args.filter_id, { pattern: args.pattern, urlTemplate: args.url_template });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/realm/filters/{filter_id}',
    auth: 'user',
    params: { filter_id: p.int() },
    async handler({ actor, user, args }) {
      await removeLinkifier(actor, user, args.filter_id);
      return {};
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/realm/linkifiers',
    auth: 'user',
    params: { ordered_linkifier_ids: p.intList() },
    async handler({ actor, user, args }) {
      await reorderLinkifiers(actor, user, args.ordered_linkifier_ids);
      return {};
    },
  }),
];
