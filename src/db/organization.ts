// Queries of organization administration on realms, users and bots.
import type { Sql } from './connect.js';
import type { BotSettings, User } from '../model/types.js';
import type { RealmState } from '../model/realmState.js';
import { loadRealmFolders } from './folders.js';
import { loadRealmProfileFields, loadRealmProfileValues } from './profileFields.js';
import { loadPendingEmailInvites } from './emailInvites.js';
import { loadRealmInvites } from './invites.js';

/** Writes a realm's name, description and settings (settings merge into the stored object). */
export async function saveRealmSettings(
  sql: Sql,
  realmId: number,
  r: { name: string; description: string; settings: Record<string, unknown> },
): Promise<void> {
  await sql`
    UPDATE realms SET name = ${r.name}, description = ${r.description},
      settings = settings || ${sql.json(r.settings as never)}
    WHERE id = ${realmId}`;
}

/** Writes the columns administration changes: name, role, activity, key, settings. */
export async function saveUser(sql: Sql, u: User): Promise<void> {
  await sql`
    UPDATE users SET full_name = ${u.fullName}, role = ${u.role}, is_active = ${u.isActive},
      api_key = ${u.apiKey}, bot_owner_id = ${u.botOwnerId}, avatar_version = ${u.avatarVersion},
      settings = ${sql.json(u.settings as never)}
    WHERE id = ${u.id} AND realm_id = ${u.realmId}`;
}

interface BotSettingsRow {
  user_id: number;
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: boolean;
}

const toBotSettings = (r: BotSettingsRow): BotSettings => ({
  userId: r.user_id,
  defaultSendingStreamId: r.default_sending_stream_id,
  defaultEventsRegisterStreamId: r.default_events_register_stream_id,
  defaultAllPublicStreams: r.default_all_public_streams,
});

export async function loadRealmBotSettings(sql: Sql, realmId: number): Promise<BotSettings[]> {
  const rows = await sql<BotSettingsRow[]>`
    SELECT b.* FROM bot_settings b JOIN users u ON u.id = b.user_id WHERE u.realm_id = ${realmId}`;
  return rows.map(toBotSettings);
}

export async function saveBotSettings(sql: Sql, b: BotSettings): Promise<void> {
  await sql`
    INSERT INTO bot_settings (user_id, default_sending_stream_id, default_events_register_stream_id, default_all_public_streams)
    VALUES (${b.userId}, ${b.defaultSendingStreamId}, ${b.defaultEventsRegisterStreamId}, ${b.defaultAllPublicStreams})
    ON CONFLICT (user_id) DO UPDATE SET
      default_sending_stream_id = EXCLUDED.default_sending_stream_id,
      default_events_register_stream_id = EXCLUDED.default_events_register_stream_id,
      default_all_public_streams = EXCLUDED.default_all_public_streams`;
}

/** Loads everything organization administration keeps in memory, at realm activation. */
export async function loadOrganizationState(sql: Sql, state: RealmState): Promise<void> {
  const realmId = state.realm.id;
  for (const folder of await loadRealmFolders(sql, realmId)) state.channelFolders.set(folder.id, folder);
  for (const field of await loadRealmProfileFields(sql, realmId)) state.putProfileField(field);
  for (const value of await loadRealmProfileValues(sql, realmId)) state.putProfileValue(value);
  for (const invite of await loadRealmInvites(sql, realmId)) state.multiuseInvites.set(invite.id, invite);
  for (const invite of await loadPendingEmailInvites(sql, realmId)) state.emailInvites.set(invite.id, invite);
  for (const bot of await loadRealmBotSettings(sql, realmId)) state.botSettings.set(bot.userId, bot);
}
