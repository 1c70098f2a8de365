// Operator CLI: create organizations and users. Prints one JSON object on stdout.
//   npm run admin -- create-realm --subdomain S --name N --owner-email E --owner-password P [--owner-name F]
//   npm run admin -- create-user --realm S --email E --password P --full-name F [--role 100|200|300|400|600]
//   npm run admin -- create-users --realm S --count N --email-prefix P [--email-domain D] [--role R] [--full-name-prefix F]
// Works against DATABASE_URL, or the embedded database under DATA_DIR (also while the server runs).
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { connectDatabase } from '../src/db/connect.js';
import { createRealm } from '../src/actions/realm/create.js';
import { insertNewUser } from '../src/actions/users/create.js';
import { newUserSettings } from '../src/permissions/realmDefaults.js';
import { createUsersInBulk } from './bulkUsers.js';
import { findRealmBySubdomain } from '../src/db/realms.js';
import { recordRealmChange } from '../src/db/changes.js';
import { ApiError } from '../src/model/errors.js';

const USAGE = `usage:
  admin create-realm --subdomain S --name N --owner-email E --owner-password P [--owner-name F]
  admin create-user --realm S --email E --password P --full-name F [--role 100|200|300|400|600]
  admin create-users --realm S --count N --email-prefix P [--email-domain D] [--role R] [--full-name-prefix F]
    (emails P1@D .. PN@D, D defaults to example.com; no password: API keys only)
(--subdomain "" / --realm "" name the root realm)`;

function required(values: Record<string, string | undefined>, name: string): string {
  const v = values[name];
  if (v === undefined) throw new Error(`missing --${name}\n${USAGE}`);
  return v;
}

async function run(argv: string[]): Promise<Record<string, unknown>> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      subdomain: { type: 'string' }, name: { type: 'string' }, 'owner-email': { type: 'string' },
      'owner-password': { type: 'string' }, 'owner-name': { type: 'string' }, realm: { type: 'string' },
      email: { type: 'string' }, password: { type: 'string' }, 'full-name': { type: 'string' }, role: { type: 'string' },
      count: { type: 'string' }, 'email-prefix': { type: 'string' }, 'email-domain': { type: 'string' },
      'full-name-prefix': { type: 'string' },
    },
    strict: true,
  });
  if (command !== 'create-realm' && command !== 'create-user' && command !== 'create-users') throw new Error(USAGE);
  const role = values.role === undefined ? 400 : Number(values.role);
  const count = Number(values.count);
  if (command === 'create-users') {
    required(values, 'realm');
    if (!Number.isInteger(count) || count < 1 || count > 100_000) throw new Error('--count must be a whole number from 1 to 100000');
    required(values, 'email-prefix');
  }
  const config = loadConfig();
  const db = await connectDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.dataDir, role: 'tool', max: 1 });
  try {
    if (command === 'create-realm') {
      const { realm, owner } = await createRealm(db.sql, {
        subdomain: required(values, 'subdomain'),
        name: required(values, 'name'),
        ownerEmail: required(values, 'owner-email'),
        ownerPassword: required(values, 'owner-password'),
        ownerName: values['owner-name'] ?? 'Owner',
      });
      return { realm_id: realm.id, subdomain: realm.stringId, user_id: owner.id, email: owner.deliveryEmail, api_key: owner.apiKey, role: owner.role };
    }
    const subdomain = required(values, 'realm');
    const realm = await findRealmBySubdomain(db.sql, subdomain);
    if (!realm) throw new Error(`no realm with subdomain '${subdomain}'`);
    if (command === 'create-users') {
      const users = await createUsersInBulk(db.sql, realm.id, {
        count,
        emailPrefix: required(values, 'email-prefix'),
        emailDomain: values['email-domain'] ?? 'example.com',
        fullNamePrefix: values['full-name-prefix'] ?? 'User',
        role,
      });
      return { realm_id: realm.id, subdomain: realm.stringId, users };
    }
    const user = await insertNewUser(db.sql, realm.id, {
      email: required(values, 'email'),
      password: required(values, 'password'),
      fullName: required(values, 'full-name'),
      role,
      // As any account the organization creates: its defaults for new users' settings.
      settings: newUserSettings(realm.settings),
    });
    await recordRealmChange(db.sql, realm.id, 'user', user.id);
    return { realm_id: realm.id, subdomain: realm.stringId, user_id: user.id, email: user.deliveryEmail, api_key: user.apiKey, role: user.role };
  } finally {
    await db.close();
  }
}

run(process.argv.slice(2)).then(
  (out) => {
    process.stdout.write(JSON.stringify(out) + '\n');
  },
  (err: unknown) => {
    const msg = err instanceof ApiError || err instanceof Error ? err.message : String(err);
    process.stderr.write(`error: ${msg}\n`);
    process.exitCode = 1;
  },
);
