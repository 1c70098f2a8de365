// Sentry: events (exceptions with their traceback, messages) and issue changes, from the
// payload's shape (Sentry sends no event header), worded as Zulip's Sentry integration.
import type { Integration, WebhookRequest, WebhookResult } from './types.js';
import { post } from './types.js';
import { ownEntry, parseJsonBody, Wild } from './wild.js';
import { badPayload, unsupportedEvent } from './errors.js';
import { pyReprStr, pyStr } from './python.js';

const NAME = 'Sentry';

/** Sentry's platform → the code block language of the traceback. */
const HIGHLIGHT: Record<string, string> = { go: 'go', java: 'java', javascript: 'javascript', node: 'javascript', python: 'python3', ruby: 'ruby' };

const text = (w: Wild) => pyStr(w.value);
/** `2020-04-28T13:56:05.903736Z` → `2020-04-28 13:56:05` (Zulip cuts at the first dot). */
const shortTime = (w: Wild) => w.str().split('.')[0]!.replace('T', ' ');

function tracebackLines(lines: Wild): string {
  if (lines.isNull) return '';
  return lines
    .list()
    .map((l) => (l.str() === '' ? '\n' : `     ${l.str()}\n`))
    .join('');
}

function exceptionBody(event: Wild, header: string): string {
  const filename = event.at('metadata').get('filename');
  let stacktrace: Wild | null = null;
  for (const value of event.at('exception').at('values').list().reverse()) {
    if (value.has('stacktrace')) {
      stacktrace = value.at('stacktrace');
      break;
    }
  }
  if (stacktrace?.truthy && filename.truthy) {
    const frame = stacktrace
      .at('frames')
      .list()
      .reverse()
      .find((f) => f.get('filename').value === filename.value);
    if (frame && frame.has('context_line') && !frame.at('context_line').isNull) {
      const language = ownEntry(HIGHLIGHT, text(event.at('platform'))) ?? '';
      const pre = tracebackLines(frame.get('pre_context'));
      const post_ = tracebackLines(frame.get('post_context'));
      return `${header}**filename:** ${text(filename)}\n\`\`\`\n\nTraceback:\n\`\`\`${language}\n${pre}---> ${frame.at('context_line').str()}\n${post_}\`\`\`\n`;
    }
  }
  return `${header}**filename:** ${text(filename)}\n\`\`\`\n`;
}

function eventMessage(event: Wild): { topic: string; content: string } {
  const topic = text(event.at('title'));
  const platform = text(event.at('platform'));
  const version = Number.parseInt(text(event.at('version')), 10);
  if (Number.isNaN(version)) throw badPayload(`${event.at('version').path} is not a number`);
  // The deprecated Raven SDKs for Python are refused; Sentry's sample event still uses one.
  if (platform === 'python' && version < 7 && text(event.get('title', '')) !== 'This is an example Python exception') {
    throw unsupportedEvent(NAME, 'Raven SDK');
  }
  const level = text(event.at('level'));
  const link = text(event.at('web_url'));
  const when = shortTime(event.at('datetime'));
  if (event.has('exception')) {
    const header = `\n**New exception:** [${topic}](${link})\n\`\`\`quote\n**level:** ${level}\n**timestamp:** ${when}\n`;
    return { topic, content: exceptionBody(event, header) };
  }
  if (event.has('logentry')) {
    return { topic, content: `\n**New message event:** [${topic}](${link})\n\`\`\`quote\n**level:** ${level}\n**timestamp:** ${when}\n\`\`\`\n` };
  }
  throw unsupportedEvent(NAME, 'unknown-event type');
}

function issueMessage(action: string, issue: Wild, actor: Wild): { topic: string; content: string } {
  const topic = text(issue.at('title'));
  const assigned = issue.at('assignedTo');
  const assignee = assigned.truthy
    ? assigned.at('type').value === 'team'
      ? `team ${text(assigned.at('name'))}`
      : text(assigned.at('name'))
    : 'No one';
  switch (action) {
    case 'created':
      return {
        topic,
        content: `\n**New issue created:** ${topic}\n\`\`\`quote\n**level:** ${text(issue.at('level'))}\n**timestamp:** ${shortTime(issue.at('lastSeen'))}\n**assignee:** ${assignee}\n\`\`\`\n`,
      };
    case 'resolved':
      return { topic, content: `\nIssue **${topic}** was marked as resolved by **${text(actor.at('name'))}**.\n` };
    case 'assigned':
      return { topic, content: `\nIssue **${topic}** has now been assigned to **${assignee}** by **${text(actor.at('name'))}**.\n` };
    case 'ignored':
      return { topic, content: `\nIssue **${topic}** was ignored by **${text(actor.at('name'))}**.\n` };
    default:
      throw unsupportedEvent(NAME, 'unknown-issue-action type');
  }
}

/** An internal integration's payload has `data`; a plain webhook's is reshaped like one. */
function asIntegrationPayload(payload: Wild): Wild | null {
  const event = payload.get('event', {});
  const eventId = event.get('event_id');
  if (!eventId.truthy) return null;
  let webUrl: string;
  try {
    webUrl = new URL(`events/${text(eventId)}/`, payload.at('url').str()).toString();
  } catch {
    throw badPayload(`${payload.at('url').path} is not a URL`);
  }
  const ts = event.has('timestamp') ? event.at('timestamp').value : event.at('received').value;
  if (typeof ts !== 'number') throw badPayload(`${event.path}['timestamp'] is not a number`);
  const seconds = Math.floor(Math.round(ts * 1e6) / 1e6);
  const when = new Date(seconds * 1000);
  // Beyond what a date can hold (±8.64e15 ms): refused like any other bad field.
  if (Number.isNaN(when.getTime())) throw badPayload(`${event.path}['timestamp'] is not a time`);
  const datetime = when.toISOString().replace('.000Z', '.000000+00:00');
  const reshaped = { ...(payload.value as object), event: { ...(event.value as object), web_url: webUrl, datetime } };
  return new Wild(payload.path, reshaped);
}

function handle(req: WebhookRequest): WebhookResult {
  const payload = parseJsonBody(req.body ?? '');
  let data = payload.get('data');
  if (data.isNull) data = asIntegrationPayload(payload) ?? new Wild(data.path, null);
  let message: { topic: string; content: string };
  if (data.truthy) {
    if (data.has('event')) message = eventMessage(data.at('event'));
    else if (data.has('issue')) message = issueMessage(text(payload.at('action')), data.at('issue'), payload.at('actor'));
    else throw unsupportedEvent(NAME, `[${data.keys().map(pyReprStr).join(', ')}]`);
  } else {
    // The legacy (deprecated) plugin's payload.
    const level = payload.at('level').str().toUpperCase();
    message = {
      topic: text(payload.get('project_name')),
      content: `\nNew [issue](${text(payload.get('url'))}) (level: ${level}):\n\n\`\`\` quote\n${text(payload.get('message'))}\n\`\`\`\n`,
    };
  }
  return post(null, message);
}

export const sentry: Integration = { name: 'sentry', displayName: NAME, handle };
