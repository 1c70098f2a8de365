// Activation: a realm's state loaded from Postgres into a new actor.
import type { Sql } from '../db/connect.js';
import type { RealmRecord } from '../model/types.js';
import { RealmState } from '../model/realmState.js';
import { loadRealmUsers } from '../db/users.js';
import { loadRealmGroups } from '../db/groups.js';
import { loadRealmStreams, loadRealmSubscriptions } from '../db/streams.js';
import { loadRealmAlertWords } from '../db/alertWords.js';
import { loadOrganizationState } from '../db/organization.js';
import { loadMessageState } from '../db/messages.js';
import { loadRealmLinkifiers } from '../db/linkifiers.js';
import { loadRealmPlaygrounds } from '../db/playgrounds.js';
import { loadRealmBotServices } from '../db/botServices.js';
import { loadRealmMutedUsers, loadRealmUserStatuses } from '../db/personal.js';
import type { Services } from './services.js';
import { RealmActor } from './actor.js';

/** Loads a realm; `writeSql` is where its actor writes (in a cluster, fenced by the realm's lease). */
export async function activateRealm(services: Services, realm: RealmRecord, writeSql: Sql = services.sql): Promise<RealmActor> {
  const { sql } = services;
  const state = new RealmState(realm);
  for (const user of await loadRealmUsers(sql, realm.id)) state.putUser(user);
  for (const group of await loadRealmGroups(sql, realm.id)) state.groups.set(group.id, group);
  for (const stream of await loadRealmStreams(sql, realm.id)) state.putStream(stream);
  for (const sub of await loadRealmSubscriptions(sql, realm.id)) state.putSubscription(sub);
  for (const [userId, words] of await loadRealmAlertWords(sql, realm.id)) state.alertWords.set(userId, words);
  await loadOrganizationState(sql, state);
  await loadMessageState(sql, state);
  state.linkifiers = await loadRealmLinkifiers(sql, realm.id);
  for (const playground of await loadRealmPlaygrounds(sql, realm.id)) state.playgrounds.set(playground.id, playground);
  for (const service of await loadRealmBotServices(sql, realm.id)) state.botServices.set(service.botId, service);
  for (const [userId, muted] of await loadRealmMutedUsers(sql, realm.id)) state.mutedUsers.set(userId, muted);
  for (const [userId, status] of await loadRealmUserStatuses(sql, realm.id)) state.userStatus.set(userId, status);
  return new RealmActor(services, state, writeSql);
}
