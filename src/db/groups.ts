// Queries on user groups.
import type { Sql } from './connect.js';
import type { UserGroup } from '../realm/types.js';
import { SYSTEM_GROUPS } from '../permissions/systemGroups.js';

interface GroupRow {
  id: number;
  name: string;
  description: string;
  is_system_group: boolean;
  deactivated: boolean;
  date_created: Date | null;
  creator_id: number | null;
  settings: Record<string, unknown>;
  members: number[] | null;
  subgroups: number[] | null;
}

export async function loadRealmGroups(sql: Sql, realmId: number): Promise<UserGroup[]> {
  const rows = await sql<GroupRow[]>`
    SELECT g.*,
      (SELECT array_agg(user_id ORDER BY user_id) FROM user_group_members m WHERE m.group_id = g.id) AS members,
      (SELECT array_agg(subgroup_id ORDER BY subgroup_id) FROM user_group_subgroups s WHERE s.group_id = g.id) AS subgroups
    FROM user_groups g WHERE g.realm_id = ${realmId} ORDER BY g.id`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    isSystemGroup: r.is_system_group,
    deactivated: r.deactivated,
    dateCreated: r.date_created,
    creatorId: r.creator_id,
    settings: r.settings,
    members: new Set(r.members ?? []),
    subgroups: new Set(r.subgroups ?? []),
  }));
}

/** Every realm has Zulip's system groups, created with it. */
export async function insertSystemGroups(sql: Sql, realmId: number): Promise<void> {
  for (const g of SYSTEM_GROUPS) {
    await sql`INSERT INTO user_groups (realm_id, name, description, is_system_group)
              VALUES (${realmId}, ${g.name}, ${g.description}, true)`;
  }
}
