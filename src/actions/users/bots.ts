// Bots: creation by members the realm allows, edits and deactivation by their owner or an
// administrator. A bot's role needs the same rights as a human's (CVE-2022-31168).
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import { BotType, Role, type BotSettings, type User } from '../../model/types.js';
import { insertUser } from '../../db/users.js';
import { saveBotSettings, saveUser } from '../../db/organization.js';
import { generateApiKey } from '../../auth/keys.js';
import { fakeEmailDomain } from '../../http/urls.js';
import { hasRealmPermission } from '../../permissions/realmSettings.js';
import { announceUser, checkFullName } from './create.js';
import { applyUserChanges, checkRoleChange, rotateApiKey } from './lifecycle.js';
import { actingUser, requireNonGuest } from '../../permissions/roles.js';

const SUPPORTED_BOT_TYPES: number[] = [BotType.GENERIC, BotType.INCOMING_WEBHOOK, BotType.OUTGOING_WEBHOOK];
import { isAdmin } from '../../model/roles.js';
import { formatBot, botSettingsOf, streamName } from '../../views/bots.js';
import { botAudience, botForAdmin } from '../../permissions/bots.js';
import { publishBotUpdate, publishRealmUserUpdate } from './events.js';
import { addBotService, checkInterface, updateBotService } from './botServices.js';
import { realmBotDeleteEvent, realmBotAddEvent, realmBotUpdateEvent, type BotChange } from '../../events/catalog/index.js';

/** A channel named as a bot default: it must exist and be one the acting user can reach. */
function defaultStream(actor: RealmActor, user: User, name: string | null): number | null {
  if (name === null || name === '') return null;
  const stream = actor.state.streamByName(name);
  const reachable = stream && !stream.isArchived && (!stream.inviteOnly || actor.state.isSubscribed(user.id, stream.id) || isAdmin(user));
  if (!stream || !reachable) throw badRequest(`Invalid channel name '${name}'`);
  return stream.id;
}

export interface NewBotInput {
  fullName: string;
  shortName: string;
  botType: number;
  defaultSendingStream: string | null;
  defaultEventsRegisterStream: string | null;
  defaultAllPublicStreams: boolean;
  /** Outgoing webhook bots: the service's URL (validated by the caller), name and interface. */
  payloadUrl: string;
  serviceName: string | null;
  interfaceType: number;
}

function checkBotCreation(actor: RealmActor, user: User, botType: number): void {
  if (!SUPPORTED_BOT_TYPES.includes(botType)) throw badRequest('Invalid bot type');
  if (isAdmin(user)) return;
  if (hasRealmPermission(actor.state, user, 'can_create_bots_group')) return;
  if (botType === BotType.INCOMING_WEBHOOK && hasRealmPermission(actor.state, user, 'can_create_write_only_bots_group')) return;
  throw badRequest('Must be an organization administrator');
}

/** Bot names must not repeat among the realm's active bots. */
function checkBotNameAvailable(actor: RealmActor, fullName: string, exceptId = 0): void {
  const taken = actor.state.activeUsers().some((u) => u.isBot && u.id !== exceptId && u.fullName.toLowerCase() === fullName.toLowerCase());
  if (taken) throw badRequest('Name is already in use!');
}

/** POST /bots: the caller owns the new bot. */
export function createBot(actor: RealmActor, acting: User, input: NewBotInput): Promise<User> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    requireNonGuest(user);
    if (user.isBot) throw badRequest('This endpoint does not accept bot requests.');
    checkBotCreation(actor, user, input.botType);
    checkInterface(input.interfaceType);
    const shortName = input.shortName.trim();
    const email = `${shortName}-bot@${fakeEmailDomain(actor.services.config, actor.realm)}`;
    if (!shortName || !/^[A-Za-z0-9._+-]+$/.test(shortName)) throw badRequest('Bad name or username');
    const fullName = checkFullName(input.fullName);
    if (actor.state.userByEmail(email)) throw badRequest('Username already in use');
    checkBotNameAvailable(actor, fullName);
    const settings: BotSettings = {
      userId: 0,
      defaultSendingStreamId: defaultStream(actor, user, input.defaultSendingStream),
      defaultEventsRegisterStreamId: defaultStream(actor, user, input.defaultEventsRegisterStream),
      defaultAllPublicStreams: input.defaultAllPublicStreams,
    };
    const bot = await actor.sql.begin(async (tx) => {
      const created = await insertUser(tx, {
        realmId: actor.realm.id,
        deliveryEmail: email,
        fullName,
        passwordHash: null,
        apiKey: generateApiKey(),
        role: Role.MEMBER,
        isBot: true,
        botType: input.botType,
        botOwnerId: user.id,
      });
      await saveBotSettings(tx, { ...settings, userId: created.id });
      const service =
        input.botType === BotType.OUTGOING_WEBHOOK
          ? await addBotService(tx, created.id, { name: input.serviceName || shortName, baseUrl: input.payloadUrl, interface: input.interfaceType })
          : null;
      return { ...created, service };
    }).then(({ service, ...created }) => {
      if (service) actor.state.botServices.set(service.botId, service);
      return created as User;
    });
    actor.state.botSettings.set(bot.id, { ...settings, userId: bot.id });
    announceUser(actor, bot);
    actor.events.publish(realmBotAddEvent(formatBot(actor, bot)), botAudience(actor.state, bot));
    return bot;
  });
}

export interface BotUpdate {
  fullName?: string;
  role?: number;
  botOwnerId?: number;
  defaultSendingStream?: string | null;
  defaultEventsRegisterStream?: string | null;
  defaultAllPublicStreams?: boolean;
  /** An outgoing webhook bot's new service URL (validated by the caller) and interface. */
  servicePayloadUrl?: string;
  serviceInterface?: number;
}

/** A bot's new owner; `bot` is one `botForAdmin` gave the caller, so the caller may change it. */
async function changeOwner(actor: RealmActor, bot: User, ownerId: number): Promise<User> {
  if (ownerId === bot.botOwnerId) return bot;
  const owner = actor.user(ownerId);
  if (!owner) throw badRequest('Failed to change owner, no such user');
  if (!owner.isActive) throw badRequest('Failed to change owner, user is deactivated');
  if (owner.isBot) throw badRequest("Failed to change owner, bots can't own other bots");
  const previousOwner = bot.botOwnerId;
  const updated: User = { ...bot, botOwnerId: ownerId };
  await saveUser(actor.sql, updated);
  actor.state.putUser(updated);
  // The previous owner no longer administers it; the new one now does.
  const prev = previousOwner === null ? undefined : actor.user(previousOwner);
  if (prev && prev.isActive && !isAdmin(prev)) {
    actor.events.publish(realmBotDeleteEvent(bot.id), [prev.id]);
  }
  if (!isAdmin(owner)) actor.events.publish(realmBotAddEvent(formatBot(actor, updated)), [owner.id]);
  const admins = actor.state.activeUsers().filter((u) => isAdmin(u) && !u.isBot).map((u) => u.id);
  actor.events.publish(realmBotUpdateEvent(bot.id, { owner_id: ownerId }), admins);
  publishRealmUserUpdate(actor, updated, { bot_owner_id: ownerId });
  return updated;
}

/** PATCH /bots/{id}: the owner or an administrator. */
export function updateBot(actor: RealmActor, acting: User, botId: number, update: BotUpdate): Promise<void> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    let bot = botForAdmin(actor.state, user, botId);
    if (update.role !== undefined) checkRoleChange(actor, user, bot, update.role);
    const fullName = update.fullName !== undefined && update.fullName.trim() !== '' ? checkFullName(update.fullName) : undefined;
    if (fullName !== undefined && fullName !== bot.fullName) checkBotNameAvailable(actor, fullName, bot.id);
    const current = botSettingsOf(actor, bot);
    const next: BotSettings = {
      ...current,
      defaultSendingStreamId:
        update.defaultSendingStream === undefined ? current.defaultSendingStreamId : defaultStream(actor, user, update.defaultSendingStream),
      defaultEventsRegisterStreamId:
        update.defaultEventsRegisterStream === undefined
          ? current.defaultEventsRegisterStreamId
          : defaultStream(actor, user, update.defaultEventsRegisterStream),
      defaultAllPublicStreams: update.defaultAllPublicStreams ?? current.defaultAllPublicStreams,
    };
    if (update.servicePayloadUrl !== undefined) checkInterface(update.serviceInterface ?? 1);
    if (update.botOwnerId !== undefined) bot = await changeOwner(actor, bot, update.botOwnerId);
    bot = await applyUserChanges(actor, bot, { role: update.role, fullName });
    const changed: BotChange = {};
    if (next.defaultSendingStreamId !== current.defaultSendingStreamId) changed.default_sending_stream = streamName(actor, next.defaultSendingStreamId);
    if (next.defaultEventsRegisterStreamId !== current.defaultEventsRegisterStreamId) {
      changed.default_events_register_stream = streamName(actor, next.defaultEventsRegisterStreamId);
    }
    if (next.defaultAllPublicStreams !== current.defaultAllPublicStreams) changed.default_all_public_streams = next.defaultAllPublicStreams;
    if (Object.keys(changed).length) {
      await saveBotSettings(actor.sql, next);
      actor.state.botSettings.set(bot.id, next);
      publishBotUpdate(actor, bot, changed);
    }
    if (update.servicePayloadUrl !== undefined) await updateBotService(actor, bot, update.servicePayloadUrl, update.serviceInterface ?? 1);
  });
}

/** POST /bots/{id}/api_key/regenerate: the owner or an administrator. */
export function regenerateBotApiKey(actor: RealmActor, acting: User, botId: number): Promise<string> {
  return actor.exclusive(async () => {
    const user = actingUser(actor.state, acting);
    const bot = await rotateApiKey(actor, botForAdmin(actor.state, user, botId));
    publishBotUpdate(actor, bot, { api_key: bot.apiKey });
    return bot.apiKey;
  });
}
