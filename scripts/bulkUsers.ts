// admin create-users: many members at once for load tests and imports. No password is
// hashed (scrypt costs ~100 ms a user): the accounts log in with their API keys only.
import { checkEmail, checkFullName, checkRole } from '../src/actions/users/create.js';
import { generateApiKey } from '../src/auth/keys.js';
import { recordRealmChange } from '../src/db/changes.js';
import type { Sql } from '../src/db/connect.js';
import { insertUsers, takenEmails, type NewUser } from '../src/db/users.js';

const BATCH = 1000;

export interface BulkUsersInput {
  count: number;
  emailPrefix: string;
  emailDomain: string;
  fullNamePrefix: string;
  role: number;
}

export interface BulkUser {
  user_id: number;
  email: string;
  api_key: string;
}

export async function createUsersInBulk(sql: Sql, realmId: number, input: BulkUsersInput): Promise<BulkUser[]> {
  checkRole(input.role);
  const users: NewUser[] = [];
  for (let i = 1; i <= input.count; i++) {
    users.push({
      realmId,
      deliveryEmail: checkEmail(`${input.emailPrefix}${i}@${input.emailDomain}`),
      fullName: checkFullName(`${input.fullNamePrefix} ${i}`),
      passwordHash: null,
      apiKey: generateApiKey(),
      role: input.role,
    });
  }
  const emails = users.map((u) => u.deliveryEmail);
  for (let i = 0; i < emails.length; i += BATCH) {
    const taken = await takenEmails(sql, realmId, emails.slice(i, i + BATCH));
    const [first] = taken;
    if (first !== undefined) throw new Error(`Email '${first}' already in use`);
  }
  // All or nothing; one journal row tells running servers to load the new users.
  const created = await sql.begin(async (tx) => {
    const out: BulkUser[] = [];
    for (let i = 0; i < users.length; i += BATCH) {
      const rows = await insertUsers(tx as unknown as Sql, users.slice(i, i + BATCH));
      rows.sort((a, b) => a.id - b.id);
      for (const r of rows) out.push({ user_id: r.id, email: r.delivery_email, api_key: r.api_key });
    }
    await recordRealmChange(tx as unknown as Sql, realmId, 'users', null);
    return out;
  });
  return created;
}
