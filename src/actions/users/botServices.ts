// The service of an outgoing webhook bot: made with the bot (POST /bots `payload_url`,
// `interface_type`), changed by its owner or an administrator (PATCH /bots `service_payload_url`,
// `service_interface`), announced to them in `realm_bot` update events.
import { badRequest } from '../../model/errors.js';
import type { RealmActor } from '../../realm/actor.js';
import { BotType, ServiceInterface, type BotService, type User } from '../../model/types.js';
import type { Sql } from '../../db/connect.js';
import { saveBotService } from '../../db/botServices.js';
import { generateApiKey } from '../../auth/keys.js';
import { botServicesOf } from '../../views/bots.js';
import { publishBotUpdate } from './events.js';

/** Zulip's check_url: an absolute http(s) or ftp(s) URL with a host. */
export function checkUrl(name: string, value: string): string {
  try {
    const u = new URL(value);
    if (['http:', 'https:', 'ftp:', 'ftps:'].includes(u.protocol) && u.hostname !== '') return value;
  } catch {
    // not a URL
  }
  throw badRequest(`${name} is not a URL`, { var_name: name });
}

export function checkInterface(value: number): number {
  if (value !== ServiceInterface.GENERIC && value !== ServiceInterface.SLACK) throw badRequest('Invalid interface type');
  return value;
}

export interface NewService {
  name: string;
  baseUrl: string;
  interface: number;
}

/** Writes the service of a bot being created (inside its creating transaction). */
export async function addBotService(tx: Sql, botId: number, s: NewService): Promise<BotService> {
  const service: BotService = { botId, name: s.name, baseUrl: s.baseUrl, interface: s.interface, token: generateApiKey() };
  await saveBotService(tx, service);
  return service;
}

/** PATCH /bots `service_payload_url` (and `service_interface`): inside the bot update's mailbox turn. */
export async function updateBotService(actor: RealmActor, bot: User, url: string, iface: number): Promise<void> {
  const current = actor.state.botServices.get(bot.id);
  if (bot.botType !== BotType.OUTGOING_WEBHOOK || !current) throw badRequest('This bot has no outgoing webhook service');
  const next: BotService = { ...current, baseUrl: url, interface: iface };
  await saveBotService(actor.sql, next);
  actor.state.botServices.set(bot.id, next);
  publishBotUpdate(actor, bot, { services: botServicesOf(actor, bot) });
}
