// Queries on users' topic visibility policies and on the topics of a channel.
import type { Sql } from './connect.js';
import type { UserTopic } from '../model/messageState.js';

interface UserTopicDbRow {
  user_id: number;
  stream_id: number;
  topic_name: string;
  visibility_policy: number;
  last_updated: Date;
}

const toUserTopic = (r: UserTopicDbRow): UserTopic => ({
  userId: r.user_id,
  streamId: r.stream_id,
  topicName: r.topic_name,
  visibilityPolicy: r.visibility_policy,
  lastUpdated: Math.floor(r.last_updated.getTime() / 1000),
});

export async function loadUserTopics(sql: Sql, realmId: number): Promise<UserTopic[]> {
  const rows = await sql<UserTopicDbRow[]>`
    SELECT ut.* FROM user_topics ut JOIN streams s ON s.id = ut.stream_id WHERE s.realm_id = ${realmId}`;
  return rows.map(toUserTopic);
}

/** Writes policies; INHERIT deletes the row. */
export async function saveUserTopics(sql: Sql, topics: UserTopic[]): Promise<void> {
  for (const t of topics) {
    if (t.visibilityPolicy === 0) {
      await sql`DELETE FROM user_topics WHERE user_id = ${t.userId} AND stream_id = ${t.streamId}
                AND lower(topic_name) = lower(${t.topicName})`;
    } else {
      await sql`
        INSERT INTO user_topics (user_id, stream_id, topic_name, visibility_policy, last_updated)
        VALUES (${t.userId}, ${t.streamId}, ${t.topicName}, ${t.visibilityPolicy}, to_timestamp(${t.lastUpdated}))
        ON CONFLICT (user_id, stream_id, lower(topic_name)) DO UPDATE
          SET topic_name = EXCLUDED.topic_name, visibility_policy = EXCLUDED.visibility_policy,
              last_updated = EXCLUDED.last_updated`;
    }
  }
}

/**
 * Topics of a channel with their latest message, newest first. `ranges`, when given, limits
 * the messages counted to those ids (protected history: the user's subscription periods).
 */
export async function channelTopics(
  sql: Sql,
  streamId: number,
  ranges: Array<[number, number]> | null,
): Promise<Array<{ name: string; maxId: number }>> {
  const froms = ranges?.map((r) => r[0]) ?? [];
  const tos = ranges?.map((r) => r[1]) ?? [];
  const rows = await sql<{ topic: string; id: string }[]>`
    SELECT DISTINCT ON (lower(m.topic)) m.topic, m.id FROM messages m
    WHERE m.stream_id = ${streamId}
      AND (${ranges === null} OR EXISTS (
        SELECT 1 FROM unnest(${froms}::int8[], ${tos}::int8[]) AS r(a, b) WHERE m.id BETWEEN r.a AND r.b))
    ORDER BY lower(m.topic), m.id DESC`;
  return rows.map((r) => ({ name: r.topic, maxId: Number(r.id) })).sort((a, b) => b.maxId - a.maxId);
}
