// Server limits reported by POST /register (values of a default Zulip install).
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
export const MAX_CHANNEL_FOLDER_NAME_LENGTH = 60;
export const MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH = 1024;
export const EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS = 90;
/** How the empty topic is shown to clients that do not handle "" (and accepted as its alias). */
export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

/** Presence: clients ping every minute; a user is offline 200 s after the last ping. */
export const PRESENCE_PING_INTERVAL_SECONDS = 60;
export const PRESENCE_OFFLINE_THRESHOLD_SECONDS = 200;
/** No live presence events in realms with more active users than this. */
export const USER_LIMIT_FOR_PRESENCE_EVENTS = 100;
/** No channel typing events for channels with more subscribers than this. */
export const MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100;
/** Alert words: each at most this long. */
export const MAX_ALERT_WORD_LENGTH = 100;

/** Limits POST /register reports at our feature level (the channel folder ones came at 410). */
export const REALM_LIMITS = {
  max_message_length: MAX_MESSAGE_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
  max_stream_name_length: MAX_STREAM_NAME_LENGTH,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  max_bulk_new_subscription_messages: 100,
  event_queue_longpoll_timeout_seconds: EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS,
  max_file_upload_size_mib: 100,
  max_avatar_file_size_mib: 5,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  realm_upload_quota_mib: null,
  password_min_length: 6,
  password_max_length: 100,
  password_min_guesses: 10000,
  server_presence_ping_interval_seconds: PRESENCE_PING_INTERVAL_SECONDS,
  server_presence_offline_threshold_seconds: PRESENCE_OFFLINE_THRESHOLD_SECONDS,
  server_typing_started_expiry_period_milliseconds: 45000,
  server_typing_stopped_wait_period_milliseconds: 12000,
  server_typing_started_wait_period_milliseconds: 30000,
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
  realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
};

/** The client-side timeout for GET /events must exceed the longest heartbeat wait. */
export function longpollTimeoutSeconds(heartbeatSeconds: number): number {
  return Math.max(EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS, Math.ceil(heartbeatSeconds * 1.2 + 10));
}
