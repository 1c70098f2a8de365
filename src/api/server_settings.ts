// GET /server_settings: what a client needs before logging in. No authentication.
import { endpoint } from './endpoint.js';
import { realmUrl } from '../http/urls.js';
import { ZULIP_FEATURE_LEVEL, ZULIP_MERGE_BASE, ZULIP_VERSION } from '../model/version.js';

export const serverSettingsEndpoints = [
  endpoint({
    method: 'GET',
    path: '/server_settings',
    auth: 'none',
    params: {},
    async handler({ actor }) {
      const url = realmUrl(actor.services.config, actor.realm);
      return {
        authentication_methods: {
          password: true, dev: false, email: true, ldap: false, remoteuser: false,
          github: false, azuread: false, gitlab: false, google: false, apple: false,
          saml: false, 'openid connect': false,
        },
        external_authentication_methods: [],
        zulip_feature_level: ZULIP_FEATURE_LEVEL,
        zulip_version: ZULIP_VERSION,
        zulip_merge_base: ZULIP_MERGE_BASE,
        push_notifications_enabled: Boolean(actor.services.config.PUSH_RELAY_URL),
        is_incompatible: false,
        email_auth_enabled: true,
        require_email_format_usernames: true,
        realm_url: url,
        realm_uri: url,
        realm_name: actor.realm.name,
        realm_icon: 'https://secure.gravatar.com/avatar/?d=identicon',
        realm_description: actor.realm.description,
        realm_web_public_access_enabled: actor.realm.settings.enable_spectator_access && actor.services.config.WEB_PUBLIC_STREAMS_ENABLED,
      };
    },
  }),
];
