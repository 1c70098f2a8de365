// Server limits reported by POST /register (values of a default Zulip install).
export const MAX_MESSAGE_LENGTH = 10000;
export const MAX_TOPIC_LENGTH = 60;
export const MAX_STREAM_NAME_LENGTH = 60;
export const MAX_STREAM_DESCRIPTION_LENGTH = 1024;
export const MAX_CHANNEL_FOLDER_NAME_LENGTH = 60;
export const MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH = 1024;
export const EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS = 90;

export const REALM_LIMITS = {
  max_message_length: MAX_MESSAGE_LENGTH,
  max_topic_length: MAX_TOPIC_LENGTH,
  max_stream_name_length: MAX_STREAM_NAME_LENGTH,
  max_stream_description_length: MAX_STREAM_DESCRIPTION_LENGTH,
  max_channel_folder_name_length: MAX_CHANNEL_FOLDER_NAME_LENGTH,
  max_channel_folder_description_length: MAX_CHANNEL_FOLDER_DESCRIPTION_LENGTH,
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
  server_presence_ping_interval_seconds: 60,
  server_presence_offline_threshold_seconds: 200,
  server_typing_started_expiry_period_milliseconds: 45000,
  server_typing_stopped_wait_period_milliseconds: 12000,
  server_typing_started_wait_period_milliseconds: 30000,
  server_min_deactivated_realm_deletion_days: 14,
  server_max_deactivated_realm_deletion_days: null,
  realm_empty_topic_display_name: 'general chat',
};
