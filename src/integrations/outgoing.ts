// The outgoing webhook protocol of Zulip's outgoing webhook bots: what the server POSTs to the
// bot's service when the bot is mentioned or sent a direct message (the generic JSON payload,
// or Slack's outgoing webhook form fields), and what the service's answer makes the bot say:
// its reply, or a failure in the conversation and a notice to the bot's owner, worded as Zulip
// words them (zerver/lib/outgoing_webhook.py).
import { ServiceInterface } from '../model/types.js';
import { pyReprBytes, pyReprStr, pyStr } from './python.js';

export type OutgoingTrigger = 'mention' | 'direct_message';

/** One triggering of one bot's service, with everything the request and the answers need. */
export interface OutgoingEvent {
  trigger: OutgoingTrigger;
  /**
   * The triggering message as GET /messages shows it with `apply_markdown=false` (Markdown
   * content, `type`, `display_recipient`, `stream_id`, `timestamp` …) plus `rendered_content`.
   */
  message: Record<string, unknown>;
  botId: number;
  botEmail: string;
  botFullName: string;
  /** The service's token, which lets the service check that the request comes from us. */
  token: string;
  interface: number;
  realmId: number;
  /** The realm's host (Slack's `team_domain`). */
  realmHost: string;
}

export interface OutgoingRequest {
  contentType: string;
  body: string;
}

/** Slack's outgoing webhooks only know channel messages. */
export const SLACK_DM_FAILURE = "Slack outgoing webhooks don't support direct messages.";

const isDirect = (e: OutgoingEvent) => e.message.type === 'private';

/** The request to POST to the service, or the failure to report instead of calling it. */
export function buildRequest(e: OutgoingEvent): OutgoingRequest | { failure: string } {
  const content = String(e.message.content ?? '');
  if (e.interface === ServiceInterface.SLACK) {
    if (isDirect(e)) return { failure: SLACK_DM_FAILURE };
    const m = e.message;
    const fields: Array<[string, string]> = [
      ['token', e.token],
      ['team_id', `T${e.realmId}`],
      ['team_domain', e.realmHost],
      ['channel_id', `C${pyStr(m.stream_id)}`],
      ['channel_name', pyStr(m.display_recipient)],
      ['thread_ts', pyStr(m.timestamp)],
      ['timestamp', pyStr(m.timestamp)],
      ['user_id', `U${pyStr(m.sender_id)}`],
      ['user_name', pyStr(m.sender_full_name)],
      ['text', content],
      ['trigger_word', e.trigger],
      ['service_id', String(e.botId)],
    ];
    return { contentType: 'application/x-www-form-urlencoded', body: new URLSearchParams(fields).toString() };
  }
  const body = { data: content, message: e.message, bot_email: e.botEmail, bot_full_name: e.botFullName, token: e.token, trigger: e.trigger };
  return { contentType: 'application/json', body: JSON.stringify(body) };
}

/** How a call to the service ended. */
export type ServiceAnswer =
  | { kind: 'response'; status: number; body: Uint8Array }
  | { kind: 'timeout' }
  | { kind: 'connection_error' }
  /** The URL leads to a private or otherwise disallowed address (Zulip's proxy answers 407). */
  | { kind: 'disallowed' };

/** Whether another try may help: the service did not answer, or answered with a server error. */
export const worthRetrying = (a: ServiceAnswer) => a.kind === 'timeout' || a.kind === 'connection_error' || (a.kind === 'response' && a.status >= 500);

/** What the bot says: in the conversation, and to its owner. */
export interface Outcome {
  /** Posted by the bot where it was triggered (its reply, or "Failure! …"). */
  reply: string | null;
  /** Sent by the bot to its owner, after the line that links the message. */
  ownerDetails: string | null;
}

const nothing: Outcome = { reply: null, ownerDetails: null };

class ResponseError extends Error {}

/** Python's truth value of a JSON value. */
function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (v !== null && typeof v === 'object') return Object.keys(v).length > 0;
  return v !== undefined && v !== null && v !== false && v !== 0 && v !== '';
}

function replyContent(e: OutgoingEvent, text: string): string | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ResponseError('Invalid JSON in response');
  }
  // Old Zulip bot servers answered "" for "nothing to say".
  if (json === '') return null;
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ResponseError('Invalid response format');
  const r = json as Record<string, unknown>;
  let content: unknown;
  if (e.interface === ServiceInterface.SLACK) {
    if (!('text' in r)) return null;
    content = r.text;
  } else {
    if (pyTruthy(r.response_not_required)) return null;
    content = 'response_string' in r ? pyStr(r.response_string) : r.content;
  }
  if (content === null || content === undefined) return null;
  const s = typeof content === 'string' ? content : pyStr(content);
  return s.trim() === '' ? null : s;
}

/**
 * What to post for the service's final answer. `timeoutSeconds` is the configured limit, named
 * in the owner's notice when the service never answered in time.
 */
export function outcomeOf(e: OutgoingEvent, answer: ServiceAnswer, timeoutSeconds: number): Outcome {
  switch (answer.kind) {
    case 'timeout':
      return { reply: 'Failure! Bot is unavailable', ownerDetails: `Request timed out after ${timeoutSeconds} seconds.` };
    case 'connection_error':
      return { reply: 'Failure! Bot is unavailable', ownerDetails: 'A connection error occurred. Is my bot server down?' };
    case 'disallowed':
      return { reply: 'Failure! Third party responded with 407', ownerDetails: 'The URL configured for the webhook is for a private or disallowed network.' };
    case 'response': {
      if (answer.status < 200 || answer.status >= 300) {
        let details = `The webhook got a response with status code *${answer.status}*.`;
        if (answer.body.length > 0) details += `\nThe response contains the following payload:\n\`\`\`\n${pyReprBytes(answer.body)}\n\`\`\``;
        return { reply: `Failure! Third party responded with ${answer.status}`, ownerDetails: details };
      }
      const text = new TextDecoder().decode(answer.body);
      try {
        const content = replyContent(e, text);
        return content === null ? nothing : { reply: content, ownerDetails: null };
      } catch (err) {
        if (!(err instanceof ResponseError)) throw err;
        let details = `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${err.message}`;
        if (text !== '') details += `\nThe response contains the following payload:\n\`\`\`\n${pyReprStr(text)}\n\`\`\``;
        return { reply: `Failure! ${err.message}`, ownerDetails: details };
      }
    }
  }
}

/** The owner's notice: which message triggered the bot, then what went wrong. */
export const ownerNotice = (messageUrl: string, botFullName: string, details: string) =>
  `[A message](${messageUrl}) to your bot @_**${botFullName}** triggered an outgoing webhook.\n${details}`;
