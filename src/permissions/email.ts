// Who may see a user's real email address.
import { EmailVisibility, Role, type User } from '../model/types.js';

export function canSeeRealEmail(viewer: User | null, target: User): boolean {
  if (target.isBot) return true;
  if (!viewer) return false;
  if (viewer.id === target.id) return true;
  return roleSeesRealEmail(viewer.role, target);
}

/** Whether a viewer of this role sees the real address of another user. */
export function roleSeesRealEmail(role: number, target: User): boolean {
  if (target.isBot) return true;
  switch (target.settings.email_address_visibility) {
    case EmailVisibility.EVERYONE:
      return true;
    case EmailVisibility.MEMBERS:
      return role <= Role.MEMBER;
    case EmailVisibility.MODERATORS:
      return role <= Role.MODERATOR;
    case EmailVisibility.ADMINS:
      return role <= Role.ADMINISTRATOR;
    default:
      return false;
  }
}

/**
 * The highest role that sees the same real addresses of others as `role` does (owners see
 * what administrators see): viewers of one class see every other user alike.
 */
export function emailViewerClass(role: number): number {
  if (role <= Role.ADMINISTRATOR) return Role.ADMINISTRATOR;
  if (role <= Role.MODERATOR) return Role.MODERATOR;
  if (role <= Role.MEMBER) return Role.MEMBER;
  return Role.GUEST;
}

/** Whether the user's API email is the real address (visible to everyone) or a placeholder. */
export function apiEmailIsReal(target: User): boolean {
  return target.isBot || target.settings.email_address_visibility === EmailVisibility.EVERYONE;
}
