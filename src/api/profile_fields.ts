// Custom profile fields of the organization.
import { z } from 'zod';
import { endpoint } from './endpoint.js';
import { p } from '../http/params.js';
import { createProfileField, deleteProfileFieldById, reorderProfileFields, updateProfileField } from '../actions/users/profileFields.js';
import { formatField } from '../views/profileFields.js';

const fieldData = () => p.json(z.record(z.string(), z.unknown()));

export const profileFieldEndpoints = [
  endpoint({
    method: 'GET',
    path: '/realm/profile_fields',
    auth: 'user',
    params: {},
    async handler({ actor }) {
      const fields = [...actor.state.profileFields.values()].sort((a, b) => a.order - b.order || a.id - b.id);
      return { custom_fields: fields.map(formatField) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/realm/profile_fields',
    auth: 'user',
    params: {
      name: p.string().default(''),
      hint: p.string().default(''),
      field_type: p.int(),
      field_data: fieldData().default({}),
      display_in_profile_summary: p.bool().default(false),
      required: p.bool().default(false),
      editable_by_user: p.bool().default(true),
    },
    async handler({ actor, user, args }) {
      const field = await createProfileField(actor, user, {
        fieldType: args.field_type,
        name: args.name,
        hint: args.hint,
        fieldData: args.field_data,
        displayInProfileSummary: args.display_in_profile_summary,
        required: args.required,
        editableByUser: args.editable_by_user,
      });
      return { id: field.id };
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/realm/profile_fields/{field_id}',
    auth: 'user',
    params: {
      field_id: p.int(),
      name: p.string().optional(),
      hint: p.string().optional(),
      field_data: fieldData().optional(),
      display_in_profile_summary: p.bool().optional(),
      required: p.bool().optional(),
      editable_by_user: p.bool().optional(),
    },
    async handler({ actor, user, args }) {
      await updateProfileField(actor, user, args.field_id, {
        name: args.name,
        hint: args.hint,
        fieldData: args.field_data,
        displayInProfileSummary: args.display_in_profile_summary,
        required: args.required,
        editableByUser: args.editable_by_user,
      });
      return {};
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/realm/profile_fields/{field_id}',
    auth: 'user',
    params: { field_id: p.int() },
    async handler({ actor, user, args }) {
      await deleteProfileFieldById(actor, user, args.field_id);
      return {};
    },
  }),
  endpoint({
    method: 'PATCH',
    path: '/realm/profile_fields',
    auth: 'user',
    params: { order: p.intList() },
    async handler({ actor, user, args }) {
      await reorderProfileFields(actor, user, args.order);
      return {};
    },
  }),
];
