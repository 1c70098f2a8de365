// Topics of a channel and users' topic visibility policies.
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { channelTopicsFor, muteTopicLegacy, setUserTopic } from '../actions/messages/topics.js';

export const topicEndpoints = [
  endpoint({
    method: 'GET',
    path: '/users/me/{stream_id}/topics',
    auth: 'user',
    params: { stream_id: p.int(), allow_empty_topic_name: p.bool().default(false) },
    async handler({ actor, user, args }) {
      return channelTopicsFor(actor, user, args.stream_id, args.allow_empty_topic_name);
    },
  }),
  endpoint({
    method: 'POST',
    path: '/user_topics',
    auth: 'user',
    params: { stream_id: p.int(), topic: p.string(), visibility_policy: p.int() },
    async handler({ actor, user, args }) {
      await setUserTopic(actor, user, args.stream_id, args.topic, args.visibility_policy);
      return {};
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/users/me/subscriptions/muted_topics',
    auth: 'user',
    params: { stream_id: p.int().optional(), stream: p.string().optional(), topic: p.string(), op: p.string() },
    async handler({ actor, user, args }) {
      await muteTopicLegacy(actor, user, { streamId: args.stream_id, name: args.stream }, args.topic, args.op);
      return {};
    },
  }),
];
