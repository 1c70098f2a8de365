// First start of an empty database: a demo organization on the root domain, and its owner's
// credentials printed once.
import type { Config } from '../config.js';
import type { Sql } from '../db/connect.js';
import { countRealms } from '../db/realms.js';
import { createRealm } from '../actions/realm/create.js';
import { generatePassword } from '../auth/keys.js';
import { realmUrl } from '../http/urls.js';

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
    ' Try it:',
    `   curl -sSu '${email}:${owner.apiKey}' ${base}/api/v1/users/me`,
    ' (shown once; keep it somewhere safe)',
    '================================================================',
    '',
  ].join('\n');
}
