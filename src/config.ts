// Environment → typed configuration. The only place that reads process.env for the server.
import { z } from 'zod';
import path from 'node:path';

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(9991),
  HOST: z.string().default('0.0.0.0'),
  EXTERNAL_HOST: z.string().optional(),
  EXTERNAL_URI_SCHEME: z.enum(['http://', 'https://']).default('http://'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z.string().optional(),
  ROLE: z.enum(['all', 'front', 'worker']).default('all'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HEARTBEAT_SECONDS: z.coerce.number().positive().default(45),
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024),
  QUEUE_MAX_EVENTS: z.coerce.number().int().positive().default(10_000),
  QUEUE_MAX_BYTES: z.coerce.number().int().positive().default(8 * 1024 * 1024),
  QUEUE_GC_SECONDS: z.coerce.number().positive().default(60),
  /** A realm with no request and no event queue for this long is unloaded from memory (reloaded on its next request). */
  REALM_IDLE_SECONDS: z.coerce.number().positive().default(900),
  PUSH_RELAY_URL: z.string().optional(),
  /** Prefix of every Redis key (BullMQ queues included), so deployments sharing a Redis stay apart. */
  REDIS_PREFIX: z.string().min(1).default('chat:'),
  RETENTION_INTERVAL_SECONDS: z.coerce.number().positive().default(3600),
  /**
   * How often each worker looks in the database for scheduled messages and reminders coming
   * due (each also gets a delayed job when it is scheduled; the sweep covers jobs lost with a
   * restart or a crash).
   */
  SCHEDULED_SWEEP_SECONDS: z.coerce.number().positive().default(30),
  JOB_CONCURRENCY: z.coerce.number().int().min(1).default(8),
  RENDER_THREADS: z.coerce.number().int().min(1).optional(),
  RENDER_BUDGET_MS: z.coerce.number().int().positive().default(5000),
  /** POST /streams/{id}/delete_topic: messages deleted per batch (Zulip's RETENTION_STREAM_MESSAGE_BATCH_SIZE). */
  DELETE_TOPIC_BATCH_SIZE: z.coerce.number().int().positive().default(100),
  /** POST /streams/{id}/delete_topic: after this long it answers `complete: false` (Zulip: 50 s). */
  DELETE_TOPIC_TIME_BUDGET_MS: z.coerce.number().int().positive().default(50_000),
  WEB_PUBLIC_STREAMS_ENABLED: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  DEMO_REALM: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  /** Outgoing webhook bots may call loopback, private and link-local addresses (off: only public ones). */
  OUTGOING_WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** How long an outgoing webhook service has to answer (Zulip's OUTGOING_WEBHOOK_TIMEOUT_SECONDS). */
  OUTGOING_WEBHOOK_TIMEOUT_SECONDS: z.coerce.number().positive().default(10),
  /**
   * API rate limits (auth/rateLimit.ts): `off`, or `name=requests/seconds` overrides of Zulip's
   * defaults (api_by_user=200/60, api_by_ip=100/60, authenticate_by_username=5/1800).
   */
  RATE_LIMITS: z.string().default(''),
  /** Addresses of reverse proxies whose X-Forwarded-For names the client (comma-separated). */
  TRUSTED_PROXIES: z.string().default(''),
  /** S3-compatible storage for uploads (set: files go to S3; unset: to $DATA_DIR/uploads). */
  S3_UPLOADS_BUCKET: z.string().min(1).optional(),
  /** Bucket of avatars, custom emoji and realm icons/logos (default: the uploads bucket, under `avatars/`). */
  S3_AVATARS_BUCKET: z.string().min(1).optional(),
  S3_ENDPOINT_URL: z.string().url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** Largest file a user may upload (Zulip's MAX_FILE_UPLOAD_SIZE). */
  MAX_FILE_UPLOAD_SIZE_MIB: z.coerce.number().int().positive().default(100),
  /** Total size of one organization's uploads (unset: no limit, as on a self-hosted Zulip). */
  REALM_UPLOAD_QUOTA_MIB: z.coerce.number().int().positive().optional(),
  /** Uploads no message links are deleted after this long (and files of deleted messages with them). */
  UNCLAIMED_UPLOAD_GRACE_SECONDS: z.coerce.number().int().positive().default(21 * 24 * 3600),
  UPLOAD_CLEANUP_INTERVAL_SECONDS: z.coerce.number().positive().default(3600),
  /** Outgoing mail server; unset: no email is sent (as Zulip without EMAIL_HOST), and the first start says so. */
  SMTP_HOST: z.string().optional(),
  /** Default 465 with SMTP_SECURE=true, else 587. */
  SMTP_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  /** `true`: TLS from the start; otherwise STARTTLS when the server offers it. */
  SMTP_SECURE: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** The From address of every email (default noreply@ the external host). */
  NOREPLY_EMAIL: z.string().optional(),
  /** The domain of channel and reply addresses of the incoming email gateway (unset: no addresses). */
  EMAIL_GATEWAY_DOMAIN: z.string().optional(),
  /** The port of the incoming SMTP gateway (unset: no gateway). */
  EMAIL_GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** The largest email the gateway accepts. */
  EMAIL_GATEWAY_MAX_BYTES: z.coerce.number().int().positive().default(10 * 1024 * 1024),
  /** Tries of one email before it is given up, and the base of the backoff between them. */
  EMAIL_SEND_ATTEMPTS: z.coerce.number().int().min(1).default(8),
  EMAIL_RETRY_SECONDS: z.coerce.number().positive().default(10),
  /** How often each worker looks for emails whose job was lost (a restart) and queues them again. */
  EMAIL_SWEEP_SECONDS: z.coerce.number().positive().default(60),
});

export type Config = z.infer<typeof envSchema> & { externalHost: string; dataDir: string };

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${issues}`);
  }
  const c = parsed.data;
  return {
    ...c,
    externalHost: (c.EXTERNAL_HOST ?? `localhost:${c.PORT}`).toLowerCase(),
    dataDir: path.resolve(c.DATA_DIR),
  };
}
