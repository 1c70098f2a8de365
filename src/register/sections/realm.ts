// Register sections about the organization and the server: `realm` (every realm setting and
// server limit) and the small realm-wide lists that have no feature of their own yet.
import { createHash } from 'node:crypto';
import type { RealmActor } from '../../realm/actor.js';
import { realmUrl } from '../../http/urls.js';
import { SERVER_GENERATION } from '../../model/version.js';
import { emojiDataPath } from '../../http/emojiData.js';
import { realmSettingsState } from '../../views/realmSettings.js';
import { REALM_LIMITS, longpollTimeoutSeconds } from '../../model/limits.js';
import { wantsLinkifierUrlTemplate, type CapabilityHolder } from '../../events/shape.js';
import { listLinkifiers } from '../../views/linkifiers.js';
import { listPlaygrounds } from '../../views/playgrounds.js';
import { defaultExternalAccounts } from '../../views/profileFields.js';
import { integrationNames, findIntegration } from '../../integrations/registry.js';

const JITSI_SERVER_URL = 'https://meet.jit.si';

const VIDEO_CHAT_PROVIDERS = {
  disabled: { name: 'None', id: 0 },
  jitsi_meet: { name: 'Jitsi Meet', id: 1 },
};

const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  'pg-13': { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
};

/** The realm icon: an identicon derived from the subdomain, as for realms without an upload. */
function realmIconUrl(stringId: string): string {
  const hash = createHash('md5').update(stringId).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon`;
}

export function realmSection(actor: RealmActor): Record<string, unknown> {
  const { config } = actor.services;
  const realm = actor.realm;
  const url = realmUrl(config, realm);
  const setting = (name: string, fallback: unknown) => realm.settings[name] ?? fallback;
  return {
    realm_name: realm.name,
    realm_description: realm.description,
    realm_url: url,
    realm_uri: url,
    realm_date_created: Math.floor(realm.dateCreated.getTime() / 1000),
    realm_enable_spectator_access: realm.settings.enable_spectator_access,
    realm_waiting_period_threshold: realm.settings.waiting_period_threshold,
    ...realmSettingsState(actor),
    realm_authentication_methods: { Email: { enabled: true, available: true } },
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    realm_presence_disabled: setting('presence_disabled', false),
    realm_icon_url: realmIconUrl(realm.stringId),
    realm_icon_source: 'G',
    realm_logo_url: '',
    realm_logo_source: 'D',
    realm_night_logo_url: '',
    realm_night_logo_source: 'D',
    realm_available_video_chat_providers: VIDEO_CHAT_PROVIDERS,
    realm_moderation_request_channel_id: setting('moderation_request_channel_id', -1),
    realm_org_type: setting('org_type', 0),
    realm_plan_type: 1,
    realm_is_zephyr_mirror_realm: false,
    realm_push_notifications_enabled: Boolean(config.PUSH_RELAY_URL),
    realm_push_notifications_enabled_end_timestamp: null,
    zulip_plan_is_not_limited: true,
    upgrade_text_for_wide_organization_logo: '',
    settings_send_digest_emails: false,
    development_environment: false,
    server_generation: SERVER_GENERATION,
    server_needs_upgrade: false,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: true,
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_web_public_streams_enabled: config.WEB_PUBLIC_STREAMS_ENABLED,
    server_jitsi_server_url: JITSI_SERVER_URL,
    // The organization's own Jitsi server (none: null), and the older key with the one in use.
    realm_jitsi_server_url: setting('jitsi_server_url', null),
    jitsi_server_url: setting('jitsi_server_url', null) ?? JITSI_SERVER_URL,
    realm_default_external_accounts: defaultExternalAccounts(),
    server_can_summarize_topics: false,
    giphy_rating_options: GIPHY_RATING_OPTIONS,
    server_thumbnail_formats: [],
    server_emoji_data_url: `${url}${emojiDataPath()}`,
    ...REALM_LIMITS,
    event_queue_longpoll_timeout_seconds: longpollTimeoutSeconds(actor.events.heartbeatSeconds),
  };
}

/** The realm's linkifiers in order; clients without `linkifier_url_template` get [] (as on Zulip). */
export function realmLinkifiersSection(actor: RealmActor, _user: unknown, args: CapabilityHolder): Record<string, unknown> {
  return { realm_linkifiers: wantsLinkifierUrlTemplate(args) ? listLinkifiers(actor) : [] };
}

export function realmPlaygroundsSection(actor: RealmActor): Record<string, unknown> {
  return { realm_playgrounds: listPlaygrounds(actor) };
}

/**
 * Sections for realm-wide data whose features do not exist here (yet), with their honest
 * value. A feature that adds its own entry to `sections` in state.ts replaces these.
 */
export const fallbackSections = {
  /** Custom emoji: none until emoji upload exists. */
  realm_emoji: () => ({ realm_emoji: {} }),
  /** The pre-FL-176 linkifier format: always empty, as on Zulip (old clients cannot render templates). */
  realm_filters: () => ({ realm_filters: [] }),
  /** Allowed signup domains: the realm does not restrict signups by domain. */
  realm_domains: () => ({ realm_domains: [] }),
  /** No Zoom integration is configured. */
  video_calls: () => ({ has_zoom_token: false }),
  /** No GIPHY API key is configured. */
  giphy: () => ({ giphy_api_key: '' }),
  /** Default channel groups: not a feature here, so there are none. */
  default_stream_groups: () => ({ realm_default_stream_groups: [] }),
  /** Embedded bots (Zulip's in-process bot library) are not offered. */
  realm_embedded_bots: () => ({ realm_embedded_bots: [] }),
  /** The incoming webhook integrations a bot can be created for (none takes options here). */
  realm_incoming_webhook_bots: () => ({
    realm_incoming_webhook_bots: integrationNames().map((name) => ({
      name,
      display_name: findIntegration(name)!.displayName,
      all_event_types: null,
      config_options: [],
      url_options: [],
    })),
  }),
  /** No onboarding hints or tour video: the web client here has none. */
  onboarding_steps: () => ({ onboarding_steps: [], navigation_tour_video_url: null }),
  /** Words full-text search ignores (PostgreSQL's English list, as Zulip's). */
  stop_words: () => ({ stop_words: STOP_WORDS }),
  /** No billing here, so never a pending sponsorship request. */
  realm_billing: () => ({ realm_billing: { has_pending_sponsorship_request: false } }),
  /** End-to-end encrypted push devices (feature level 406): none registered here. */
  push_device: () => ({ push_devices: {} }),
};

const STOP_WORDS = (
  'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
  'it its itself they them their theirs themselves what which who whom this that these those am is are was were be ' +
  'been being have has had having do does did doing a an the and but if or because as until while of at by for with ' +
  'about against between into through during before after above below to from up down in out on off over under again ' +
  'further then once here there when where why how all any both each few more most other some such no nor not only ' +
  'own same so than too very s t can will just don should now'
).split(' ');
