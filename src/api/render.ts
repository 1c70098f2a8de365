// POST /messages/render: a preview of how the server renders a message from the caller.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { renderContent } from '../actions/messages/render.js';

export const renderEndpoints = [
  endpoint({
    method: 'POST',
    path: '/messages/render',
    auth: 'user',
    params: { content: p.string() },
    async handler({ actor, user, args }) {
      const rendered = await renderContent(actor, args.content, { senderId: user.id });
      return { rendered: rendered.html };
    },
  }),
];
