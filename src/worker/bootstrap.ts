// First start of an empty database: a demo organization on the root domain, and its owner's
// credentials printed once.
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { countRealms } from '../db/realms.js';
import { createRealm } from '../actions/realm/create.js';
import { generatePassword } from '../auth/keys.js';
import { realmUrl } from '../http/urls.js';
import type { RealmRegistry } from '../realm/registry.js';
import { subscribe } from '../actions/channels/subscriptions.js';

export async function createDemoRealmIfEmpty(sql: Sql, config: Config): Promise<string | null> {
  if ((await countRealms(sql)) > 0) return null;
  const password = generatePassword();
  const email = 'owner@example.com';
  const { realm, owner } = await createRealm(sql, {
    subdomain: '',
    name: 'Demo organization',
    ownerEmail: email,
    ownerPassword: password,
    ownerName: 'Demo Owner',
  });
  const base = realmUrl(config, realm);
  return [
    '',
    '================================================================',
    ' A demo organization was created. Its owner account:',
    `   email:    ${email}`,
    `   password: ${password}`,
    `   API key:  ${owner.apiKey}`,
    ` Open ${base} in a browser and log in, or try the API:`,
    `   curl -sSu '${email}:${owner.apiKey}' ${base}/api/v1/users/me`,
    ' (shown once; keep it somewhere safe)',
    '================================================================',
    '',
  ].join('\n');
}

/**
 * The demo organization's first channel, so that the owner can chat at once: `general`, a
 * default channel (every new user joins it).
 */
export async function seedDemoRealm(registry: RealmRegistry): Promise<void> {
  const actor = await registry.get('');
  const owner = actor?.state.activeUsers().find((u) => !u.isBot);
  if (!actor || !owner) return;
  await subscribe(actor, owner, {
    subscriptions: [{ name: 'general', description: 'Everyone is here' }],
    authorizationErrorsFatal: true,
    inviteOnly: false,
    isWebPublic: false,
    isDefaultStream: true,
    messageRetentionDays: 'realm_default',
    groupSettings: {},
    sendNewSubscriptionMessages: false,
  });
}
