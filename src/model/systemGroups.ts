// Zulip's system groups. Their membership follows from roles (and, for role:fullmembers, the
// realm's waiting period); role:internet also admits spectators.
import { Role } from './types.js';

export interface SystemGroupDef {
  name: string;
  description: string;
  /** Whether an active user of this role (and account age) belongs to the group. */
  includes: (role: number, isFullMember: boolean) => boolean;
}

export const SYSTEM_GROUPS: SystemGroupDef[] = [
  { name: 'role:internet', description: 'Everyone on the internet', includes: () => true },
  { name: 'role:everyone', description: 'Everyone including guests', includes: () => true },
  { name: 'role:members', description: 'Everyone except guests', includes: (r) => r <= Role.MEMBER },
  { name: 'role:fullmembers', description: 'Full members', includes: (r, full) => r <= Role.MEMBER && (full || r < Role.MEMBER) },
  { name: 'role:moderators', description: 'Moderators', includes: (r) => r <= Role.MODERATOR },
  { name: 'role:administrators', description: 'Administrators', includes: (r) => r <= Role.ADMINISTRATOR },
  { name: 'role:owners', description: 'Owners', includes: (r) => r === Role.OWNER },
  { name: 'role:nobody', description: 'Nobody', includes: () => false },
];

export const SYSTEM_GROUP_BY_NAME = new Map(SYSTEM_GROUPS.map((g) => [g.name, g]));

/** The system group that exactly matches a role, for the role's own group. */
export const ROLE_GROUP_NAME: Record<number, string> = {
  [Role.OWNER]: 'role:owners',
  [Role.ADMINISTRATOR]: 'role:administrators',
  [Role.MODERATOR]: 'role:moderators',
  [Role.MEMBER]: 'role:members',
  [Role.GUEST]: 'role:everyone',
};
