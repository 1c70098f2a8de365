// What this server reports about itself to clients.
export const ZULIP_FEATURE_LEVEL = 406;
export const ZULIP_VERSION = '11.0-dev+teamchat';
export const ZULIP_MERGE_BASE = '11.0-dev';
/**
 * Distinguishes server processes to clients (Zulip's server_generation): this process's start
 * time in milliseconds, sent in register and in `restart` events.
 */
export const SERVER_GENERATION = Date.now();
