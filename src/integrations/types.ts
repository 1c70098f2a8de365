// What an integration is: a pure function from the tool's request (headers, body, the URL's
// options) to the messages Zulip would post for it, or to "nothing to post". Unsupported events
// and malformed payloads are thrown as API errors (errors.ts).

/** Realm users an integration may name in a message (Jira turns account names into names). */
export interface UserDirectory {
  /** Full name of the active user with this delivery email, if any. */
  fullNameByEmail(email: string): string | undefined;
  /** Zulip's guess for a Jira user name: an active user whose full name is it, or whose email starts with it. */
  guessFullName(name: string): string | undefined;
}

export interface WebhookRequest {
  /** Request headers, names in lower case. */
  headers: Record<string, string>;
  /** The body's exact bytes (for signatures). */
  raw: Uint8Array;
  /** The body as UTF-8 text; null when it is not valid UTF-8. */
  body: string | null;
  /** The body's media type, lower case, without parameters. */
  contentType: string;
  /** Query and form parameters: the integration's options (`branches`, `topic`, …). */
  params: Record<string, string>;
  directory: UserDirectory;
}

export interface WebhookMessage {
  topic: string;
  /** Zulip-flavored Markdown. */
  content: string;
}

export type WebhookResult =
  /** Messages to post. `eventType` is what `only_events` / `exclude_events` filter on (null: never filtered). */
  | { kind: 'messages'; messages: WebhookMessage[]; eventType: string | null }
  /** A valid request the integration deliberately posts nothing for (a filtered branch, an ignored event). */
  | { kind: 'ignored' };

export interface Integration {
  /** The URL's name: `/api/v1/external/{name}`. */
  name: string;
  /** The name in error messages (`webhook_name`) and in the client name `Zulip{name}Webhook`. */
  displayName: string;
  /** Whether the stream and topic parameters are URL-decoded once more (Jira double-encodes them). */
  unquoteUrlParameters?: boolean;
  /** Whether a body that is not JSON is reported to the bot's owner (Zulip's default: yes). */
  notifyOwnerOnInvalidJson?: boolean;
  handle(req: WebhookRequest): WebhookResult;
}

export const post = (eventType: string | null, ...messages: WebhookMessage[]): WebhookResult => ({ kind: 'messages', messages, eventType });
export const ignored = (): WebhookResult => ({ kind: 'ignored' });
