// Queries on the services of outgoing webhook bots.
import type { Sql } from './connect.js';
import type { BotService } from '../model/types.js';

interface ServiceRow {
  bot_id: number;
  name: string;
  base_url: string;
  interface: number;
  token: string;
}

const toService = (r: ServiceRow): BotService => ({ botId: r.bot_id, name: r.name, baseUrl: r.base_url, interface: r.interface, token: r.token });

export async function loadRealmBotServices(sql: Sql, realmId: number): Promise<BotService[]> {
  const rows = await sql<ServiceRow[]>`
    SELECT s.* FROM bot_services s JOIN users u ON u.id = s.bot_id WHERE u.realm_id = ${realmId}`;
  return rows.map(toService);
}

/** One bot's service as it is now (a job reads it when it runs, so an edited URL is used at once). */
export async function loadBotService(sql: Sql, botId: number): Promise<BotService | null> {
  const rows = await sql<ServiceRow[]>`SELECT * FROM bot_services WHERE bot_id = ${botId}`;
  return rows[0] ? toService(rows[0]) : null;
}

export async function saveBotService(sql: Sql, s: BotService): Promise<void> {
  await sql`
    INSERT INTO bot_services (bot_id, name, base_url, interface, token)
    VALUES (${s.botId}, ${s.name}, ${s.baseUrl}, ${s.interface}, ${s.token})
    ON CONFLICT (bot_id) DO UPDATE SET name = EXCLUDED.name, base_url = EXCLUDED.base_url,
      interface = EXCLUDED.interface, token = EXCLUDED.token`;
}
