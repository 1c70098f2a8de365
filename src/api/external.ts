// POST /api/v1/external/{integration}: incoming webhooks. One route per integration, so that
// an unknown integration is a 404 before anything else. The caller is the account whose
// `api_key` the URL carries (or HTTP Basic credentials); `stream` (name or id) and `topic`
// say where the message goes, `only_events` / `exclude_events` filter event types.
import { z } from 'zod';
import { endpoint, type Endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { findIntegration, integrationNames } from '../integrations/registry.js';
import { receiveWebhook } from '../actions/integrations/incoming.js';

const events = () => p.json(z.array(z.string())).optional();

function webhookEndpoint(name: string): Endpoint {
  const integration = findIntegration(name)!;
  return endpoint({
    method: 'POST',
    path: `/external/${name}`,
    auth: 'webhook',
    params: {
      api_key: p.string().optional(),
      stream: p.string().optional(),
      topic: p.string().optional(),
      only_events: events(),
      exclude_events: events(),
      unquote_url_parameters: p.bool().default(false),
    },
    async handler({ actor, user, args, req }) {
      const headers = req.headers ?? {};
      await receiveWebhook(actor, user, {
        integration,
        headers,
        raw: Buffer.from(req.rawBody ?? '', 'latin1'),
        contentType: (headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase(),
        params: req.params,
        path: `/api/v1${req.path}`,
        stream: args.stream,
        topic: args.topic,
        onlyEvents: args.only_events,
        excludeEvents: args.exclude_events,
        unquoteUrlParameters: args.unquote_url_parameters || integration.unquoteUrlParameters === true,
      });
      return {};
    },
  });
}

export const externalEndpoints: Endpoint[] = integrationNames().map(webhookEndpoint);
