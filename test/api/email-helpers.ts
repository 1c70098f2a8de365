// Helpers of the email tests: a server of our own sending to a capture SMTP server, and
// clients of its realm's users.
import { expect } from 'vitest';
import { encodeForm, httpRequest, newRealm, newUser, type Reply } from '../helpers/client.js';
import { OwnClient, startOwnServer, until, type OwnServer } from '../helpers/ownServer.js';
import { SmtpCapture, type CapturedMail } from '../helpers/smtpCapture.js';
import { createDatabase } from '../helpers/globalSetup.js';

export const GATEWAY_DOMAIN = 'gateway.test';

export interface EmailWorld {
  smtp: SmtpCapture;
  server: OwnServer;
  /** The world's own database: sweeps of the outbox see only this world's email. */
  databaseUrl: string;
  subdomain: string;
  owner: OwnClient;
  user(name: string, role?: number): Promise<OwnClient>;
  stop(): Promise<void>;
}

/** A server whose mail goes to a capture SMTP server, with quick retries and the given extra settings. */
export async function emailWorld(prefix: string, env: Record<string, string> = {}, redis = false): Promise<EmailWorld> {
  const smtp = await SmtpCapture.start();
  // A database of its own: a server's outbox sweep takes every pending email of its database,
  // as in a real deployment, and must not send another test server's mail.
  const db = await createDatabase(prefix);
  const dbEnv = { DATABASE_URL: db.url };
  const server = await startOwnServer(
    {
      ...dbEnv,
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      NOREPLY_EMAIL: 'noreply@chat.test',
      EMAIL_RETRY_SECONDS: '0.3',
      EMAIL_SEND_ATTEMPTS: '20',
      EMAIL_GATEWAY_DOMAIN: GATEWAY_DOMAIN,
      ...env,
    },
    redis,
  );
  const realm = await newRealm(prefix, dbEnv);
  const owner = new OwnClient(server.port, realm.owner);
  return {
    smtp,
    server,
    databaseUrl: db.url,
    subdomain: realm.subdomain,
    owner,
    async user(name, role = 400) {
      return new OwnClient(server.port, await newUser(realm.subdomain, name, role, dbEnv));
    },
    async stop() {
      await server.stop();
      await smtp.close();
      await db.drop();
    },
  };
}

/** Waits for `count` emails to an address (and a little longer, for duplicates). */
export async function mailsTo(smtp: SmtpCapture, address: string, count = 1, timeoutMs = 8000): Promise<CapturedMail[]> {
  await until(() => smtp.to(address).length >= count, `${count} email(s) to ${address}`, timeoutMs);
  await new Promise((r) => setTimeout(r, 300));
  return smtp.to(address);
}

export function expectOk(r: Reply): Reply['body'] {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

export function expectFailure(r: Reply, status: number, code: string, msg?: string): Reply['body'] {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.code).toBe(code);
  if (msg !== undefined) expect(r.body.msg).toBe(msg);
  return r.body;
}

/** The join link of an invitation email, from both its parts. */
export function joinLink(mail: CapturedMail): string {
  const fromText = /(https?:\/\/\S+\/join\/[a-z0-9]+\/)/.exec(mail.text)?.[1];
  const fromHtml = /href="(https?:\/\/[^"]+\/join\/[a-z0-9]+\/)"/.exec(mail.html)?.[1];
  expect(fromText).toBeTruthy();
  expect(fromHtml).toBe(fromText);
  return fromText!;
}

/** A request without credentials to the own server (signing up). */
export function anonymousPost(port: number, subdomain: string, path: string, params: Record<string, unknown>): Promise<Reply> {
  const host = `${subdomain}.localhost:${port}`;
  return httpRequest(port, {
    method: 'POST',
    path: `/api/v1${path}`,
    host,
    headers: { Host: host, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: encodeForm(params),
  });
}
