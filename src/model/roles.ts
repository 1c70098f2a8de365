// Role predicates: what a role is, independent of any realm setting.
import { Role } from './types.js';

interface HasRole {
  role: number;
}

export const isOwner = (u: HasRole) => u.role === Role.OWNER;
export const isAdmin = (u: HasRole) => u.role <= Role.ADMINISTRATOR;
export const isModerator = (u: HasRole) => u.role <= Role.MODERATOR;
export const isGuest = (u: HasRole) => u.role === Role.GUEST;
