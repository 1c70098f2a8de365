// The payload catalog: every job the server queues, by name, with the data it carries. The
// request path queues jobs by these names; the processors live in src/worker/jobs.
import type { JobDefinition, JobQueue } from './types.js';
import type { OutgoingEvent, Outcome } from '../integrations/outgoing.js';

/** What every mobile push payload carries: the server, the realm and the user. */
export interface PushPayloadBase {
  server: string;
  realm_id: number;
  realm_name: string;
  realm_uri: string;
  realm_url: string;
  user_id: number;
}

/** Zulip's mobile push payload of a message (`event: "message"`). */
export interface PushPayload extends PushPayloadBase {
  event: 'message';
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  zulip_message_id: number;
  recipient_type: 'private' | 'stream';
  stream?: string;
  stream_id?: number;
  topic?: string;
  /** Group direct messages: every participant's id, ascending, comma-separated. */
  pm_users?: string;
  content: string;
  content_truncated: boolean;
  time: number;
  /** Why the user is notified: direct_message, mentioned, stream_wildcard_mentioned, … */
  trigger: string;
}

/** A test notification (POST /mobile_push/test_notification; `event: "test"` since feature level 234). */
export interface PushTestPayload extends PushPayloadBase {
  event: 'test';
}

export interface PushJob {
  realmId: number;
  userId: number;
  payload: PushPayload | PushTestPayload;
  /** Only the registration with this legacy token (a test notification to one device). */
  token?: string;
}

/** The retention sweep takes no data: it works on the realms of the process that runs it. */
export type RetentionJob = Record<string, never>;

/**
 * A scheduled message or reminder coming due. Only a wake-up: the row in the database says
 * whether there is still anything to deliver, and for which time.
 */
export interface ScheduledDeliveryJob {
  realmId: number;
  scheduledMessageId: number;
  /** The delivery time the job was queued for (ms); a row moved to another time has another job. */
  dueMs: number;
  /** How often the job was passed on by processes that may not hold the realm. */
  hop?: number;
}

/**
 * The upload cleanup takes no data: it removes the uploads no message links after the grace
 * period in the realms of the process that runs it, expired download tokens, and staged
 * uploads a crash left behind.
 */
export type UploadCleanupJob = Record<string, never>;

/** An uploaded image to measure and make a thumbnail of. */
export interface ThumbnailJob {
  realmId: number;
  attachmentId: number;
}

/** The sweep takes no data: it looks in the database for every row coming due. */
export type ScheduledSweepJob = Record<string, never>;

/**
 * One call of an outgoing webhook bot's service, made self-contained when the triggering
 * message committed: the request and the places to answer need nothing else of the realm.
 */
export interface OutgoingWebhookJob {
  realmId: number;
  subdomain: string;
  /** The service's URL as its owner set it. */
  url: string;
  event: OutgoingEvent;
  /** Where the bot answers: the conversation of the triggering message. */
  conversation: { type: 'stream'; streamId: number; topic: string } | { type: 'private'; userIds: number[] };
  /** A link to the triggering message, for the owner's notices. */
  messageUrl: string;
}

/** What an outgoing webhook bot says after its call; posted in the realm's actor. */
export interface OutgoingWebhookReplyJob {
  call: OutgoingWebhookJob;
  outcome: Outcome;
  /** How often the job was passed on by processes that may not hold the realm. */
  hop?: number;
}

/** One outgoing email, by its outbox row (src/db/emailOutbox.ts): the row holds the mail. */
export interface EmailSendJob {
  outboxId: number;
  /** Tries in all (EMAIL_SEND_ATTEMPTS when queued): the last failure gives the row up. */
  attempts: number;
}

/** The sweep takes no data: it looks in the outbox for emails whose job was lost. */
export type EmailSweepJob = Record<string, never>;

/**
 * A user's missed-message email coming due (the end of their batching period). Only a
 * wake-up: the pending rows in the database say what, if anything, is still unread.
 */
export interface MissedMessageEmailJob {
  realmId: number;
  userId: number;
}

export interface JobPayloads {
  push: PushJob;
  retention: RetentionJob;
  'scheduled-delivery': ScheduledDeliveryJob;
  'scheduled-sweep': ScheduledSweepJob;
  'outgoing-webhook': OutgoingWebhookJob;
  'outgoing-webhook-reply': OutgoingWebhookReplyJob;
  'upload-cleanup': UploadCleanupJob;
  thumbnail: ThumbnailJob;
  'email-send': EmailSendJob;
  'email-sweep': EmailSweepJob;
  'missed-message-email': MissedMessageEmailJob;
}

/** A table with the catalog's data types: what the request path may queue. */
export type PayloadTable = { [N in keyof JobPayloads]: JobDefinition<JobPayloads[N]> };

/** The sending side of the server's job runner, as realm actors hold it. */
export type ServerJobQueue = JobQueue<PayloadTable>;
