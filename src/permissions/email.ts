// Who may see a user's real email address.
import { EmailVisibility, Role, type User } from '../model/types.js';

export function canSeeRealEmail(viewer: User | null, target: User): boolean {
  if (target.isBot) return true;
  if (!viewer) return false;
  if (viewer.id === target.id) return true;
  switch (target.settings.email_address_visibility) {
    case EmailVisibility.EVERYONE:
      return true;
    case EmailVisibility.MEMBERS:
      return viewer.role <= Role.MEMBER;
    case EmailVisibility.MODERATORS:
      return viewer.role <= Role.MODERATOR;
    case EmailVisibility.ADMINS:
      return viewer.role <= Role.ADMINISTRATOR;
    default:
      return false;
  }
}

/** Whether the user's API email is the real address (visible to everyone) or a placeholder. */
export function apiEmailIsReal(target: User): boolean {
  return target.isBot || target.settings.email_address_visibility === EmailVisibility.EVERYONE;
}
