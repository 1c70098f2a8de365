// Code playgrounds: add, remove.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { addPlayground, removePlayground } from '../actions/realm/playgrounds.js';

export const playgroundEndpoints = [
  endpoint({
    method: 'POST',
    path: '/realm/playgrounds',
    auth: 'user',
    params: { name: p.string(), pygments_language: p.string(), url_template: p.string() },
    async handler({ actor, user, args }) {
      const playground = await addPlayground(actor, user, {
        name: args.name,
        pygmentsLanguage: args.pygments_language,
        urlTemplate: args.url_template,
      });
      return { id: playground.id };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/realm/playgrounds/{playground_id}',
    auth: 'user',
    params: { playground_id: p.int() },
    async handler({ actor, user, args }) {
      await removePlayground(actor, user, args.playground_id);
      return {};
    },
  }),
];
