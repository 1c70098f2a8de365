// Push delivery: POSTs one notification, with every push registration of its user, to the
// push relay. The relay (PUSH_RELAY_URL) talks to APNs / FCM; see README "Push notifications".
import { loadPushTargets } from '../../db/pushTargets.js';
import { PermanentJobError, type JobDefinition } from '../../jobs/types.js';
import type { PushJob } from '../../jobs/payloads.js';
import type { WorkerJobDeps } from './deps.js';

/** Where the relay takes notifications, under PUSH_RELAY_URL. */
export const PUSH_NOTIFY_PATH = '/api/v1/remotes/push/notify';
const RELAY_TIMEOUT_MS = 10_000;

/** The relay's URL for notifications; credentials in the URL become a Basic header (fetch refuses them in URLs). */
export function relayRequest(relayUrl: string): { url: string; headers: Record<string, string> } {
  const u = new URL(relayUrl);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.Authorization = 'Basic ' + Buffer.from(`${user}:${pass}`).toString('base64');
    u.username = '';
    u.password = '';
  }
  u.pathname = u.pathname.replace(/\/+$/, '') + PUSH_NOTIFY_PATH;
  return { url: u.toString(), headers };
}

export const pushJob: JobDefinition<PushJob, WorkerJobDeps> = {
  attempts: 3,
  backoffMs: 1000,
  async run(job, { deps, log }) {
    const relay = deps.config.PUSH_RELAY_URL;
    if (!relay) throw new PermanentJobError('PUSH_RELAY_URL is not set');
    // Read at delivery time: a device removed since the message was sent gets nothing.
    const all = await loadPushTargets(deps.sql, job.realmId, job.userId);
    const devices = job.token === undefined ? all : all.filter((d) => d.type === 'legacy' && d.token === job.token);
    if (devices.length === 0) {
      log.debug({ user: job.userId }, 'no push devices left');
      return;
    }
    const { url, headers } = relayRequest(relay);
    const body = JSON.stringify({ realm_url: job.payload.realm_url, user_id: job.userId, devices, payload: job.payload });
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(RELAY_TIMEOUT_MS) });
    // The answer is not used; reading it lets the connection be reused.
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`push relay answered HTTP ${res.status}`);
    const message = job.payload.event === 'message' ? job.payload.zulip_message_id : undefined;
    log.debug({ user: job.userId, message, event: job.payload.event, devices: devices.length }, 'push notification sent');
  },
};
