// Queries on custom profile fields and users' values of them.
import type { Sql } from './connect.js';
import type { CustomProfileField, ProfileFieldValue } from '../model/types.js';

interface FieldRow {
  id: number;
  realm_id: number;
  name: string;
  hint: string;
  field_type: number;
  field_data: string;
  sort_order: number;
  display_in_profile_summary: boolean;
  required: boolean;
  editable_by_user: boolean;
}

const toField = (r: FieldRow): CustomProfileField => ({
  id: r.id,
  realmId: r.realm_id,
  name: r.name,
  hint: r.hint,
  fieldType: r.field_type,
  fieldData: r.field_data,
  order: r.sort_order,
  displayInProfileSummary: r.display_in_profile_summary,
  required: r.required,
  editableByUser: r.editable_by_user,
});

export async function loadRealmProfileFields(sql: Sql, realmId: number): Promise<CustomProfileField[]> {
  const rows = await sql<FieldRow[]>`SELECT * FROM custom_profile_fields WHERE realm_id = ${realmId} ORDER BY sort_order, id`;
  return rows.map(toField);
}

export async function loadRealmProfileValues(sql: Sql, realmId: number): Promise<ProfileFieldValue[]> {
  const rows = await sql<{ field_id: number; user_id: number; value: string; rendered_value: string | null }[]>`
    SELECT v.* FROM custom_profile_field_values v JOIN custom_profile_fields f ON f.id = v.field_id
    WHERE f.realm_id = ${realmId}`;
  return rows.map((r) => ({ fieldId: r.field_id, userId: r.user_id, value: r.value, renderedValue: r.rendered_value }));
}

export type NewProfileField = Omit<CustomProfileField, 'id'>;

export async function insertProfileField(sql: Sql, f: NewProfileField): Promise<CustomProfileField> {
  const rows = await sql<FieldRow[]>`
    INSERT INTO custom_profile_fields (realm_id, name, hint, field_type, field_data, sort_order,
                                       display_in_profile_summary, required, editable_by_user)
    VALUES (${f.realmId}, ${f.name}, ${f.hint}, ${f.fieldType}, ${f.fieldData}, ${f.order},
            ${f.displayInProfileSummary}, ${f.required}, ${f.editableByUser})
    RETURNING *`;
  return toField(rows[0]!);
}

export async function saveProfileField(sql: Sql, f: CustomProfileField): Promise<void> {
  await sql`
    UPDATE custom_profile_fields SET name = ${f.name}, hint = ${f.hint}, field_data = ${f.fieldData},
      sort_order = ${f.order}, display_in_profile_summary = ${f.displayInProfileSummary},
      required = ${f.required}, editable_by_user = ${f.editableByUser}
    WHERE id = ${f.id} AND realm_id = ${f.realmId}`;
}

export async function deleteProfileField(sql: Sql, realmId: number, id: number): Promise<void> {
  await sql`DELETE FROM custom_profile_fields WHERE id = ${id} AND realm_id = ${realmId}`;
}

export async function saveProfileFieldOrder(sql: Sql, realmId: number, ids: number[]): Promise<void> {
  await sql.begin(async (tx) => {
    for (let i = 0; i < ids.length; i++) {
      await tx`UPDATE custom_profile_fields SET sort_order = ${i} WHERE id = ${ids[i]!} AND realm_id = ${realmId}`;
    }
  });
}

/** Writes a user's values: upserts the given ones, deletes those whose value is null. */
export async function saveProfileValues(
  sql: Sql,
  userId: number,
  changes: { fieldId: number; value: string | null; renderedValue: string | null }[],
): Promise<void> {
  await sql.begin(async (tx) => {
    for (const c of changes) {
      if (c.value === null) {
        await tx`DELETE FROM custom_profile_field_values WHERE field_id = ${c.fieldId} AND user_id = ${userId}`;
      } else {
        await tx`
          INSERT INTO custom_profile_field_values (field_id, user_id, value, rendered_value)
          VALUES (${c.fieldId}, ${userId}, ${c.value}, ${c.renderedValue})
          ON CONFLICT (field_id, user_id) DO UPDATE SET value = EXCLUDED.value, rendered_value = EXCLUDED.rendered_value`;
      }
    }
  });
}
