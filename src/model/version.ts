// What this server reports about itself to clients.
export const ZULIP_FEATURE_LEVEL = 406;
export const ZULIP_VERSION = '11.0-dev+teamchat';
export const ZULIP_MERGE_BASE = '11.0-dev';
