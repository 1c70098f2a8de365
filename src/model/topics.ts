// Topic names as clients send them.
import { EMPTY_TOPIC_DISPLAY_NAME } from './limits.js';

/** A topic sent by a client: `(no topic)` and the display name both mean the empty topic. */
export function topicFromClient(topic: string): string {
  const t = topic.trim();
  return t === '(no topic)' || t === EMPTY_TOPIC_DISPLAY_NAME ? '' : t;
}
