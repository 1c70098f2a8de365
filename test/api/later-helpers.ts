// Helpers of the "later and saved" tests: a server on a database of its own (so that no other
// server of the test run sees its scheduled messages and delivers them), and a client-side
// application of the later/saved events to a register snapshot (Zulip's apply_event), to
// check that snapshot + events equals a fresh snapshot.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { admin } from '../helpers/client.js';
import { createDatabase, startServer, stopServer } from '../helpers/globalSetup.js';
import { PortClient } from './events-support.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export class IsolatedServer {
  private proc!: ChildProcess;
  port = 0;
  private output: () => string = () => '';
  private counter = 0;

  private constructor(
    private readonly db: { url: string; drop: () => Promise<void> },
    private readonly env: Record<string, string>,
  ) {}

  static async start(env: Record<string, string> = {}): Promise<IsolatedServer> {
    const db = await createDatabase('chat_later');
    const server = new IsolatedServer(db, env);
    try {
      await server.boot();
    } catch (err) {
      await db.drop();
      throw err;
    }
    return server;
  }

  private async boot(): Promise<void> {
    const s = await startServer({ DATABASE_URL: this.db.url, DEMO_REALM: 'false', REDIS_URL: '', ...this.env });
    this.proc = s.proc;
    this.port = s.port;
    this.output = s.output;
  }

  /** A realm and its owner on this server's database. */
  async realm(prefix: string): Promise<{ owner: PortClient; subdomain: string }> {
    const subdomain = `${prefix}${process.pid}x${Date.now().toString(36)}${this.counter++}`.toLowerCase().slice(0, 40);
    const info = await admin(
      ['create-realm', '--subdomain', subdomain, '--name', `Realm ${subdomain}`, '--owner-email', `owner@${subdomain}.test`,
        '--owner-password', 'owner-password-1', '--owner-name', 'Olivia Owner'],
      { DATABASE_URL: this.db.url },
    );
    return { owner: new PortClient(this.port, subdomain, info.email, info.api_key, info.user_id), subdomain };
  }

  async user(subdomain: string, name: string, role = 400): Promise<PortClient> {
    const email = `${name.toLowerCase().replace(/\W+/g, '.')}@${subdomain}.test`;
    const info = await admin(
      ['create-user', '--realm', subdomain, '--email', email, '--password', 'user-password-1', '--full-name', name, '--role', String(role)],
      { DATABASE_URL: this.db.url },
    );
    return new PortClient(this.port, subdomain, info.email, info.api_key, info.user_id);
  }

  /** The same client on this server's current port (after a restart). */
  client(c: PortClient): PortClient {
    return new PortClient(this.port, c.subdomain, c.email, c.apiKey, c.userId);
  }

  /** `kill -9`, then a new process on the same database. */
  async crashAndRestart(env: Record<string, string> = {}): Promise<void> {
    const exited = new Promise((r) => this.proc.once('exit', r));
    this.proc.kill('SIGKILL');
    await exited;
    Object.assign(this.env, env);
    await this.boot();
  }

  logs(): string {
    return this.output();
  }

  /** The server's own database (for tests that lock or inspect it). */
  get databaseUrl(): string {
    return this.db.url;
  }

  async stop(): Promise<void> {
    await stopServer(this.proc);
    await this.db.drop();
  }
}

/** Zulip's apply_event for the later/saved event types. */
export function applyLaterEvent(state: Json, e: Json): void {
  if (e.type === 'scheduled_messages') {
    const list = state.scheduled_messages as Json[];
    if (e.op === 'add') list.push(...(e.scheduled_messages as Json[]));
    if (e.op === 'update') {
      const i = list.findIndex((m) => m.scheduled_message_id === e.scheduled_message.scheduled_message_id);
      if (i >= 0) list[i] = e.scheduled_message;
    }
    if (e.op === 'remove') state.scheduled_messages = list.filter((m) => m.scheduled_message_id !== e.scheduled_message_id);
    (state.scheduled_messages as Json[]).sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  } else if (e.type === 'reminders') {
    if (e.op === 'add') (state.reminders as Json[]).push(...(e.reminders as Json[]));
    if (e.op === 'remove') state.reminders = (state.reminders as Json[]).filter((m) => m.reminder_id !== e.reminder_id);
  } else if (e.type === 'drafts') {
    const list = state.drafts as Json[];
    if (e.op === 'add') list.push(...(e.drafts as Json[]));
    if (e.op === 'update') list[list.findIndex((d) => d.id === e.draft.id)] = e.draft;
    if (e.op === 'remove') state.drafts = list.filter((d) => d.id !== e.draft_id);
  } else if (e.type === 'saved_snippets') {
    const list = state.saved_snippets as Json[];
    if (e.op === 'add') list.push(e.saved_snippet);
    if (e.op === 'update') list[list.findIndex((s) => s.id === e.saved_snippet.id)] = e.saved_snippet;
    if (e.op === 'remove') state.saved_snippets = list.filter((s) => s.id !== e.saved_snippet_id);
  } else if (e.type === 'navigation_view') {
    const list = state.navigation_views as Json[];
    if (e.op === 'add') list.push(e.navigation_view);
    if (e.op === 'update') Object.assign(list.find((v) => v.fragment === e.fragment)!, e.data);
    if (e.op === 'remove') state.navigation_views = list.filter((v) => v.fragment !== e.fragment);
  }
}

const LATER_KEYS = ['scheduled_messages', 'reminders', 'drafts', 'saved_snippets', 'navigation_views'];
export const LATER_TYPES = LATER_KEYS.map((k) => (k === 'navigation_views' ? 'navigation_view' : k));

/** The later/saved part of a register snapshot, with drafts in id order (their order differs by design). */
export function laterState(body: Json): Json {
  const out: Json = {};
  for (const key of LATER_KEYS) out[key] = structuredClone(body[key]);
  (out.drafts as Json[]).sort((a, b) => a.id - b.id);
  return out;
}

/** Snapshot + events == a fresh snapshot, for the later/saved keys. */
export function expectApplied(snapshot: Json, events: Json[], fresh: Json): void {
  const state = laterState(snapshot);
  for (const e of events) applyLaterEvent(state, e);
  (state.drafts as Json[]).sort((a, b) => a.id - b.id);
  expect(state).toEqual(laterState(fresh));
}
