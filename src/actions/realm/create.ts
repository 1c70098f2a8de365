// Creating organizations (operators only: the admin CLI and the first start).
import type { Sql } from '../../db/connect.js';
import { findRealmBySubdomain, insertRealm } from '../../db/realms.js';
import { badRequest } from '../../model/errors.js';
import { Role, type RealmRecord, type User } from '../../model/types.js';
import { insertNewUser } from '../users/create.js';
import { insertSystemGroups } from '../../db/groups.js';

const SUBDOMAIN_RE = /^([a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?)?$/;

export interface NewRealmInput {
  subdomain: string;
  name: string;
  ownerEmail: string;
  ownerPassword: string;
  ownerName: string;
}

export async function createRealm(sql: Sql, input: NewRealmInput): Promise<{ realm: RealmRecord; owner: User }> {
  const subdomain = input.subdomain.trim().toLowerCase();
  if (!SUBDOMAIN_RE.test(subdomain) || subdomain === 'www') throw badRequest(`Invalid subdomain '${input.subdomain}'`);
  if (!input.name.trim()) throw badRequest('Organization name is required');
  return sql.begin(async (tx) => {
    if (await findRealmBySubdomain(tx, subdomain)) throw badRequest(`Subdomain '${subdomain}' is already in use`);
    const realm = await insertRealm(tx, { stringId: subdomain, name: input.name.trim() });
    await insertSystemGroups(tx, realm.id);
    const owner = await insertNewUser(tx, realm.id, {
      email: input.ownerEmail,
      password: input.ownerPassword,
      fullName: input.ownerName,
      role: Role.OWNER,
      canCreateUsers: true,
    });
    return { realm, owner };
  }) as Promise<{ realm: RealmRecord; owner: User }>;
}
