// Creating users: validation, persistence, memory, events.
import { badRequest, mustBeAdmin } from '../../model/errors.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../auth/passwords.js';
import { generateApiKey } from '../../auth/keys.js';
import { emailTaken, findUserIdByEmail, insertUser, loadUser } from '../../db/users.js';
import type { Sql } from '../../db/connect.js';
import type { RealmActor } from '../../realm/actor.js';
import { ROLES, Role, type User, type UserSettings } from '../../model/types.js';
import { newUserSettings } from '../../permissions/realmDefaults.js';
import { usersWhoCanAccess, usersWhoCannotAccess } from '../../permissions/userAccess.js';
import { formatUser } from '../../views/users.js';
import { publishPlaceholderAdd } from './sight.js';
import { realmUserAddEvent, userGroupMembersEvent } from '../../events/catalog/index.js';
import { isDirectSystemMember } from '../../views/groups.js';

// Deliberately simple: one @, no spaces, a dot in the domain or a single-label host.
const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

export interface NewUserInput {
  email: string;
  password: string | null;
  fullName: string;
  role?: number;
  canCreateUsers?: boolean;
  timezone?: string;
  settings?: Partial<UserSettings>;
}

export function checkFullName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw badRequest('Name too short!');
  if (trimmed.length > 100) throw badRequest('Name too long!');
  // Characters that would break mention syntax or render invisibly.
  if (/[*`\\>"@\p{Cc}]/u.test(trimmed)) throw badRequest('Invalid characters in name!');
  // `Name|15` would be read as a mention of user 15.
  if (/\|\d+$/.test(trimmed)) throw badRequest('Invalid format!');
  return trimmed;
}

export function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (!EMAIL_RE.test(trimmed) || trimmed.length > 254) throw badRequest(`Invalid address.`);
  return trimmed;
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw badRequest('The password is too weak.');
  if (password.length > PASSWORD_MAX_LENGTH) throw badRequest('The password is too long.');
}

export function checkRole(role: number): void {
  if (!ROLES.includes(role)) throw badRequest('Invalid role');
}

/** Writes a new user row after validating it; shared by the API and the admin CLI. */
export async function insertNewUser(sql: Sql, realmId: number, input: NewUserInput): Promise<User> {
  const email = checkEmail(input.email);
  const fullName = checkFullName(input.fullName);
  if (input.password !== null) checkPassword(input.password);
  const role = input.role ?? Role.MEMBER;
  checkRole(role);
  if (await emailTaken(sql, realmId, email)) throw badRequest(`Email '${email}' already in use`);
  const passwordHash = input.password === null ? null : await hashPassword(input.password);
  try {
    return await insertUser(sql, {
      realmId,
      deliveryEmail: email,
      fullName,
      passwordHash,
      apiKey: generateApiKey(),
      role,
      canCreateUsers: input.canCreateUsers ?? false,
      timezone: input.timezone ?? '',
      settings: input.settings,
    });
  } catch (e) {
    // Two creations racing for one address: the unique index decides.
    if ((e as { code?: string }).code === '23505') throw badRequest(`Email '${email}' already in use`);
    throw e;
  }
}

/** A user now exists in the database: hold it in memory and tell everyone who can see it. */
export function announceUser(actor: RealmActor, user: User): void {
  actor.state.putUser(user);
  const { config } = actor.services;
  const viewers = usersWhoCanAccess(actor.state, user);
  actor.events.publish(
    (queue) => realmUserAddEvent(formatUser(config, actor.realm, actor.user(queue.userId) ?? null, user, { clientGravatar: queue.opts.clientGravatar })),
    viewers,
  );
  // Those who may not see the new user learn of an "Unknown user" in its place, as in Zulip's
  // notify_created_user. Bots are seen by everyone.
  if (!user.isBot) publishPlaceholderAdd(actor, user.id, usersWhoCannotAccess(actor.state, user));
  // Clients keep system group membership: the new user joins its role's groups (as Zulip's
  // do_create_user tells everyone).
  const everyone = actor.state.activeUsers().map((u) => u.id);
  for (const group of actor.state.groups.values()) {
    if (group.isSystemGroup && isDirectSystemMember(actor.state, group, user)) {
      actor.events.publish(userGroupMembersEvent('add_members', group.id, [user.id]), everyone);
    }
  }
}

/** POST /users: organization administrators holding the can_create_users permission. */
export function createUser(actor: RealmActor, acting: User, input: NewUserInput): Promise<User> {
  if (acting.role > Role.ADMINISTRATOR) throw mustBeAdmin();
  if (!acting.canCreateUsers) throw badRequest('User not authorized to create users');
  return actor.exclusive(async () => {
    const user = await insertNewUser(actor.sql, actor.realm.id, {
      ...input,
      role: Role.MEMBER,
      settings: newUserSettings(actor.realm.settings),
    });
    announceUser(actor, user);
    return user;
  });
}

/** A user written by another process (the admin CLI): load it and announce it. */
export function adoptExternalUser(actor: RealmActor, userId: number): Promise<void> {
  return actor.exclusive(async () => {
    const user = await loadUser(actor.sql, actor.realm.id, userId);
    if (!user) return;
    if (actor.user(userId)) actor.state.putUser(user);
    else announceUser(actor, user);
  });
}

/**
 * The account a password login names. A user the admin CLI created a moment ago may not have
 * reached this actor through the change feed yet, so an address unknown in memory is looked
 * up once in the database before the login is refused.
 */
export async function userForLogin(actor: RealmActor, email: string): Promise<User | undefined> {
  const known = actor.state.userByEmail(email);
  if (known) return known;
  const id = await findUserIdByEmail(actor.sql, actor.realm.id, email);
  if (id === null) return undefined;
  await adoptExternalUser(actor, id);
  return actor.user(id);
}
