// Queries on user groups.
import type { Sql } from './connect.js';
import type { UserGroup } from '../model/types.js';
import { SYSTEM_GROUPS } from '../model/systemGroups.js';

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

export interface NewGroup {
  name: string;
  description: string;
  creatorId: number;
  settings: Record<string, unknown>;
  members: number[];
  subgroups: number[];
}

/** Creates a user group with its members and subgroups in one transaction. */
export async function insertGroup(sql: Sql, realmId: number, g: NewGroup): Promise<UserGroup> {
  return (await sql.begin(async (tx) => {
    const [row] = await tx<{ id: number; date_created: Date }[]>`
      INSERT INTO user_groups (realm_id, name, description, is_system_group, date_created, creator_id, settings)
      VALUES (${realmId}, ${g.name}, ${g.description}, false, now(), ${g.creatorId}, ${tx.json(g.settings as never)})
      RETURNING id, date_created`;
    await addGroupMembers(tx, row!.id, g.members);
    await addSubgroups(tx, row!.id, g.subgroups);
    return {
      id: row!.id,
      name: g.name,
      description: g.description,
      isSystemGroup: false,
      deactivated: false,
      dateCreated: row!.date_created,
      creatorId: g.creatorId,
      settings: g.settings,
      members: new Set(g.members),
      subgroups: new Set(g.subgroups),
    };
  })) as UserGroup;
}

/** Writes a group's name, description, settings and deactivation flag. */
export async function saveGroup(sql: Sql, realmId: number, g: UserGroup): Promise<void> {
  await sql`
    UPDATE user_groups SET name = ${g.name}, description = ${g.description}, deactivated = ${g.deactivated},
      settings = ${sql.json(g.settings as never)}
    WHERE id = ${g.id} AND realm_id = ${realmId}`;
}

export async function addGroupMembers(sql: Sql, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  const rows = userIds.map((userId) => ({ group_id: groupId, user_id: userId }));
  await sql`INSERT INTO user_group_members ${sql(rows)} ON CONFLICT DO NOTHING`;
}

export async function removeGroupMembers(sql: Sql, groupId: number, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await sql`DELETE FROM user_group_members WHERE group_id = ${groupId} AND user_id IN ${sql(userIds)}`;
}

export async function addSubgroups(sql: Sql, groupId: number, subgroupIds: number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  const rows = subgroupIds.map((id) => ({ group_id: groupId, subgroup_id: id }));
  await sql`INSERT INTO user_group_subgroups ${sql(rows)} ON CONFLICT DO NOTHING`;
}

export async function removeSubgroups(sql: Sql, groupId: number, subgroupIds: number[]): Promise<void> {
  if (subgroupIds.length === 0) return;
  await sql`DELETE FROM user_group_subgroups WHERE group_id = ${groupId} AND subgroup_id IN ${sql(subgroupIds)}`;
}

/** Whether a realm already has a group of this name (names are unique per realm). */
export async function groupNameTaken(sql: Sql, realmId: number, name: string, exceptId = 0): Promise<boolean> {
  const rows = await sql`SELECT 1 FROM user_groups WHERE realm_id = ${realmId} AND name = ${name} AND id <> ${exceptId}`;
  return rows.length > 0;
}
