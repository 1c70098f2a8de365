// The apply-events property, as Zulip's test_events.py checks it: a client registers, an
// action happens through the HTTP API, the client applies the events its queue received to
// its register state (test/helpers/applyEvents.ts), and the result must equal what a fresh
// register returns. Every watching client (the actor, a bystander, a guest) is checked.
//
// A Watcher is one such client. `verify` runs an action, then for each watcher: drains its
// queue, registers afresh, drains both queues until neither receives anything more (so events
// of work that ends after the HTTP answer are not missed), and compares. The fresh register
// then becomes the watcher's state and queue for the next action, so a file runs through its
// actions with one register per watcher per action.
import { expect } from 'vitest';
import { newRealm, newUser, type Client, type Params } from '../helpers/client.js';
import { applyEvents, fromRegister, registerShape, type ClientOptions, type ClientState } from '../helpers/applyEvents.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What the web app and the mobile apps send: every capability, subscribers, Markdown. */
export const MODERN_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: true,
  stream_typing_notifications: true,
  user_settings_object: true,
  linkifier_url_template: true,
  user_list_incomplete: true,
  include_deactivated_groups: true,
  archived_channels: true,
  empty_topic_name: true,
};

export const MODERN_REGISTER: Params = {
  apply_markdown: true,
  client_gravatar: true,
  include_subscribers: true,
  slim_presence: true,
  client_capabilities: MODERN_CAPABILITIES,
};

function optionsOf(userId: number, params: Params): ClientOptions {
  const caps = (params.client_capabilities ?? {}) as Record<string, boolean>;
  return {
    userId,
    includeSubscribers: params.include_subscribers === true,
    clientGravatar: params.client_gravatar !== false,
    linkifierUrlTemplate: caps.linkifier_url_template === true,
    userListIncomplete: caps.user_list_incomplete === true,
    archivedChannels: caps.archived_channels === true,
    includeDeactivatedGroups: caps.include_deactivated_groups === true,
  };
}

/**
 * Values that legitimately differ between two registers (Zulip's test normalizes the same):
 * queue ids, the server's clock, subscriber counts (peer events do not carry them), and the
 * order of channel, bot and draft lists, which clients treat as keyed collections.
 */
export function normalize(state: Obj, skip: Set<string>): Obj {
  const out = structuredClone(state);
  for (const key of ['queue_id', 'last_event_id', 'server_timestamp', 'presence_last_update_id', ...skip]) delete out[key];
  for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
    if (!(key in out)) continue;
    const byId: Obj = {};
    for (const s of out[key] as Obj[]) {
      delete s.subscriber_count;
      if (Array.isArray(s.subscribers)) s.subscribers.sort((a: number, b: number) => a - b);
      byId[s.stream_id] = s;
    }
    out[key] = byId;
  }
  if ('realm_bots' in out) out.realm_bots = Object.fromEntries((out.realm_bots as Obj[]).map((b) => [b.user_id, b]));
  // Register lists drafts newest first; Zulip's reducer appends new ones.
  if ('drafts' in out) out.drafts = Object.fromEntries((out.drafts as Obj[]).map((d) => [d.id, d]));
  return out;
}

/**
 * Presence entries come and go without events, in Zulip too: they age out of the history
 * window, and appear when a user comes into a guest's sight. What a client holds must still be
 * right: every entry of an active user the client has must match the fresh register's.
 */
function comparablePresences(hybrid: Obj, normal: Obj): void {
  if (!('presences' in hybrid) || !('presences' in normal)) return;
  // Users out of sight that a client listing everyone holds as placeholders have no presence.
  const inSight = (u: Obj) => !(u.full_name === 'Unknown user' && u.avatar_url === UNKNOWN_USER_AVATAR);
  const active = new Set(((hybrid.realm_users ?? []) as Obj[]).filter(inSight).map((u) => String(u.user_id)));
  for (const key of Object.keys(hybrid.presences)) if (!active.has(key)) delete hybrid.presences[key];
  for (const key of Object.keys(normal.presences)) if (!(key in hybrid.presences)) delete normal.presences[key];
}

const UNKNOWN_USER_AVATAR = '/static/images/unknown-user-avatar.png';

let watcherCount = 0;

export class Watcher {
  cs!: ClientState;
  queueId = '';
  lastEventId = -1;
  /** Keys this watcher's state could not follow (see applyEvents.ts); cleared by each verify. */
  refetched = new Set<string>();

  private constructor(
    readonly client: Client,
    readonly label: string,
    readonly params: Params,
  ) {}

  /** Registers a client for this user with the given register parameters. */
  static async open(client: Client, label = `watcher ${++watcherCount}`, params: Params = MODERN_REGISTER): Promise<Watcher> {
    const w = new Watcher(client, label, params);
    const fresh = await w.register();
    w.cs = fresh.cs;
    w.queueId = fresh.queueId;
    return w;
  }

  get userId(): number {
    return this.client.userId!;
  }

  private async register(): Promise<{ cs: ClientState; queueId: string; lastEventId: number }> {
    const r = await this.client.post('/register', this.params);
    if (r.status !== 200) throw new Error(`${this.label}: register failed: ${r.status} ${JSON.stringify(r.body)}`);
    return { cs: fromRegister(r.body, optionsOf(this.userId, this.params)), queueId: r.body.queue_id, lastEventId: r.body.last_event_id };
  }

  /** Events that arrived since the last read (non-blocking, acknowledged as read). */
  private async drain(queueId: string, after: number): Promise<{ events: Obj[]; last: number }> {
    const r = await this.client.get('/events', { queue_id: queueId, last_event_id: after, dont_block: true });
    if (r.status !== 200) throw new Error(`${this.label}: poll failed: ${r.status} ${JSON.stringify(r.body)}`);
    const events = (r.body.events as Obj[]).filter((e) => e.type !== 'heartbeat');
    const all = r.body.events as Obj[];
    return { events, last: all.length ? all[all.length - 1]!.id : after };
  }

  /**
   * Applies what the queue received, registers afresh and compares; the fresh client then
   * replaces this one. Returns the events applied and whether they changed the state.
   */
  async check(): Promise<{ events: Obj[]; changed: boolean }> {
    let fresh: { cs: ClientState; queueId: string; lastEventId: number };
    try {
      fresh = await this.settle();
    } catch (err) {
      // An event the reference client rejects: start over from a fresh register.
      await this.client.delete('/events', { queue_id: this.queueId });
      const again = await this.register();
      Object.assign(this, { cs: again.cs, queueId: again.queueId, lastEventId: again.lastEventId });
      throw err;
    }
    try {
      return this.compare(fresh);
    } finally {
      // Pass or fail, the fresh client carries on: one mismatch must not spoil the next check.
      await this.client.delete('/events', { queue_id: this.queueId });
      this.cs = fresh.cs;
      this.queueId = fresh.queueId;
      this.lastEventId = fresh.lastEventId;
    }
  }

  private received: Obj[] = [];
  private before: Obj = {};

  /** Registers afresh, then drains the old and the fresh queue until neither receives anything. */
  private async settle(): Promise<{ cs: ClientState; queueId: string; lastEventId: number }> {
    this.before = registerShape(this.cs);
    const received: Obj[] = [];
    this.received = received;
    // Everything published before the fresh register's snapshot is in the old queue only; what
    // comes after it is in both. Work that ends after its HTTP answer may still be publishing:
    // drain both queues until a round brings nothing, so both states have seen the same events.
    const fresh = await this.register();
    let old = { events: [] as Obj[], last: this.lastEventId };
    for (let round = 0; round < 20; round++) {
      const [a, b] = await Promise.all([this.drain(this.queueId, old.last), this.drain(fresh.queueId, fresh.lastEventId)]);
      received.push(...a.events);
      applyEvents(this.cs, a.events);
      applyEvents(fresh.cs, b.events);
      old = a;
      fresh.lastEventId = b.last;
      if (a.events.length === 0 && b.events.length === 0) break;
    }
    return fresh;
  }

  private compare(fresh: { cs: ClientState }): { events: Obj[]; changed: boolean } {
    const received = this.received;
    const skip = new Set([...this.cs.needsRefetch, ...fresh.cs.needsRefetch]);
    const hybrid = normalize(registerShape(this.cs), skip);
    const normal = normalize(registerShape(fresh.cs), skip);
    comparablePresences(hybrid, normal);
    const context = `${this.label} (user ${this.userId}) after events:\n${received.map((e) => JSON.stringify(e)).join('\n')}`;
    expect(Object.keys(hybrid).sort(), `register keys, ${context}`).toEqual(Object.keys(normal).sort());
    for (const key of Object.keys(normal)) expect(hybrid[key], `${key}: ${context}`).toEqual(normal[key]);
    const changed = JSON.stringify(normalize(this.before, skip)) !== JSON.stringify(hybrid);
    this.refetched = skip;
    return { events: received, changed };
  }

  /** Closes the queue (the fresh one made by the last check). */
  async close(): Promise<void> {
    await this.client.delete('/events', { queue_id: this.queueId });
  }
}

export interface Outcome {
  events: Obj[];
  changed: boolean;
}

/**
 * Runs an action and checks every watcher. Unless told otherwise, the action must change the
 * state of at least one watcher (an action whose events change nothing tests nothing).
 */
export async function verify<T>(
  watchers: Watcher[],
  action: () => Promise<T>,
  opts: { stateChange?: boolean } = {},
): Promise<{ result: T; outcomes: Map<Watcher, Outcome> }> {
  const result = await action();
  // Every watcher finishes its check (and moves on to its fresh queue) before a failure is
  // reported, so the next action starts from settled watchers.
  const settled = await Promise.allSettled(watchers.map(async (w) => [w, await w.check()] as const));
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  const outcomes = new Map<Watcher, Outcome>(settled.map((s) => (s as PromiseFulfilledResult<readonly [Watcher, Outcome]>).value));
  if (opts.stateChange !== false) {
    expect([...outcomes.values()].some((o) => o.changed), 'the action changed no watcher\'s state').toBe(true);
  }
  return { result, outcomes };
}

const PEOPLE = {
  bob: { name: 'Bob Member', role: 400 },
  carol: { name: 'Carol Member', role: 400 },
  guest: { name: 'Gus Guest', role: 600 },
  dan: { name: 'Dan Member', role: 400 },
  gina: { name: 'Gina Guest', role: 600 },
} as const;

type Person = keyof typeof PEOPLE;
export type Organization<P extends Person> = { subdomain: string; owner: Client } & Record<P, Client>;

/**
 * A fresh organization for one file: its owner and the people asked for, in that order (Bob,
 * Carol and Dan are members, Gus and Gina are guests). Each has made a request, so the server
 * knows them.
 */
export async function newOrganization<P extends Person>(prefix: string, people: readonly P[]): Promise<Organization<P>> {
  const realm = await newRealm(prefix);
  const clients = {} as Record<P, Client>;
  for (const person of people) clients[person] = await newUser(realm.subdomain, PEOPLE[person].name, PEOPLE[person].role);
  for (const person of people) ok(await clients[person].get('/users/me'));
  return { subdomain: realm.subdomain, owner: realm.owner, ...clients };
}

/** One watcher per client, labelled by its key, opened in the order given. */
export async function openWatchers(clients: Record<string, Client>, params: Params = MODERN_REGISTER): Promise<Watcher[]> {
  const watchers: Watcher[] = [];
  for (const [label, client] of Object.entries(clients)) watchers.push(await Watcher.open(client, label, params));
  return watchers;
}

export async function closeWatchers(watchers: Watcher[]): Promise<void> {
  for (const w of watchers) await w.close();
}

/** The ids of the organization's system groups by name (`role:members`, …). */
export async function systemGroups(client: Client): Promise<Record<string, number>> {
  const groups: Record<string, number> = {};
  for (const g of ok(await client.get('/user_groups')).user_groups) if (g.is_system_group) groups[g.name] = g.id;
  return groups;
}

export async function channelId(client: Client, name: string): Promise<number> {
  return ok(await client.get('/get_stream_id', { stream: name })).stream_id;
}

/** Asserts an HTTP answer succeeded and returns its body. */
export function ok(r: { status: number; body: Obj }): Obj {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}
