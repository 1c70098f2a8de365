// Jira: issue created, updated (reassigned, commented, transitioned, fields changed), deleted,
// and the newer comment events, from the payload's `webhookEvent`; Jira markup is turned into
// Markdown and Jira users into realm users' names where they match, as Zulip's Jira integration.
import type { Integration, UserDirectory, WebhookRequest, WebhookResult } from './types.js';
import { ignored, post } from './types.js';
import { ownEntry, parseJsonBody, Wild } from './wild.js';
import { anomalousPayload, unsupportedEvent } from './errors.js';
import { ApiError } from '../model/errors.js';
import { PUNCTUATION } from './python.js';

const NAME = 'Jira';

const IGNORED_EVENTS = [
  'attachment_created',
  'issuelink_created',
  'issuelink_deleted',
  'jira:version_released',
  'jira:worklog_updated',
  'sprint_closed',
  'sprint_started',
  'worklog_created',
  'worklog_updated',
];

/** Zulip's get_in: a nested value, or the default when any step is missing or of the wrong kind. */
function getIn(p: Wild, keys: string[], fallback = ''): Wild {
  try {
    let w = p;
    for (const k of keys) w = w.at(k);
    return w;
  } catch (err) {
    if (err instanceof ApiError) return new Wild('default', fallback);
    throw err;
  }
}

/** Jira's wiki markup, simplistically, as Markdown. */
export function convertJiraMarkup(content: string, directory: UserDirectory): string {
  let out = content.replace(/\*([^*]+)\*/g, '**$1**');
  out = out.replace(/{{([^*]+?)}}/g, '`$1`');
  out = out.replace(/bq\. (.*)/g, '> $1');
  out = out.replace(/{quote}([\s\S]*?){quote}/g, '~~~ quote\n$1\n~~~');
  out = out.replace(/{noformat}([\s\S]*?){noformat}/g, '~~~\n$1\n~~~');
  out = out.replace(/{code[^\n]*}([\s\S]*?){code}/g, '~~~\n$1\n~~~');
  // Bare links ([url]) first, then titled ones ([title|url]).
  out = out.replace(/\[([^|~]+?)\]/g, '[$1]($1)');
  out = out.replace(/\[(?:([^|~]+)\|)([^\]]*)\]/g, '[$1]($2)');
  for (const m of [...out.matchAll(/\[~(.*?)\]/g)]) {
    const username = m[1]!;
    const name = directory.guessFullName(username) ?? username;
    out = out.split(`[~${username}]`).join(`**${name}**`);
  }
  return out;
}

function issueId(p: Wild): string {
  // Some old Jira versions send comment events without the issue: only its internal number.
  if (!p.has('issue')) return p.at('comment').at('self').str().split('/').at(-3) ?? '';
  return getIn(p, ['issue', 'key']).str();
}

function issueTitle(p: Wild): string {
  if (!p.has('issue')) return 'Upgrade Jira to get the issue title here.';
  return getIn(p, ['issue', 'fields', 'summary']).str();
}

/** The issue as a link to its page, guessed from the REST URL of the issue. */
function issueLink(p: Wild, id: string | null, withTitle: boolean): string {
  const key = id ?? issueId(p);
  const label = withTitle ? `${key}: ${issueTitle(p)}` : key;
  const base = /(.*)\/rest\/api\/.*/.exec(getIn(p, ['issue', 'self']).str());
  return base ? `[${label}](${base[1]}/browse/${key})` : label;
}

const author = (p: Wild) => getIn(p, ['user', 'displayName']).str();

function assigneeMention(email: string, directory: UserDirectory): string {
  if (email === '') return '';
  return `**${directory.fullNameByEmail(email) ?? email}**`;
}

function subEvent(p: Wild): string {
  const sub = p.get('issue_event_type_name', '').str();
  if (sub !== '') return sub;
  if (p.get('comment').truthy) return 'issue_commented';
  if (p.get('transition').truthy) return 'issue_transited';
  return sub;
}

function changeLine(field: string | null, from: string | null, to: string | null): string {
  let out = `* Changed ${field ?? 'None'}`;
  if (from) out += ` from **${from}**`;
  if (to) out += ` to ${to}\n`;
  return out;
}

function updated(p: Wild, directory: UserDirectory): string {
  const id = getIn(p, ['issue', 'key']).str();
  const issue = issueLink(p, id, true);
  const mention = assigneeMention(getIn(p, ['issue', 'fields', 'assignee', 'emailAddress'], '').str(), directory);
  const blurb = mention !== '' ? ` (assigned to ${mention})` : '';
  const sub = subEvent(p);
  if (sub.includes('comment')) {
    const verb = sub === 'issue_commented' ? 'commented on' : sub === 'issue_comment_edited' ? 'edited a comment on' : 'deleted a comment from';
    const who = p.get('webhookEvent').value === 'comment_created' ? p.at('comment').at('author').at('displayName').str() : author(p);
    const comment = getIn(p, ['comment', 'body']).str();
    const content = `${who} ${verb} ${issue}${blurb}`;
    return comment ? `${content}:\n\n\`\`\` quote\n${convertJiraMarkup(comment, directory)}\n\`\`\`` : `${content}.`;
  }
  let content = `${author(p)} updated ${issue}${blurb}:\n\n`;
  const changelog = p.get('changelog');
  if (changelog.truthy) {
    for (const item of changelog.get('items').list()) {
      const field = item.get('field').strOrNull();
      const to = field === 'assignee' && mention !== '' ? mention : `**${item.get('toString').strOrNull() ?? 'None'}**`;
      const from = item.get('fromString').strOrNull();
      if (to || from) content += changeLine(field, from, to);
    }
  } else if (sub === 'issue_transited') {
    const from = getIn(p, ['transition', 'from_status']).str();
    const to = `**${getIn(p, ['transition', 'to_status']).str()}**`;
    content += changeLine('status', from, to);
  }
  return content;
}

function created(p: Wild): string {
  return `${author(p)} created ${issueLink(p, null, true)}:\n\n* **Priority**: ${getIn(p, ['issue', 'fields', 'priority', 'name']).str()}\n* **Assignee**: ${getIn(p, ['issue', 'fields', 'assignee', 'displayName'], 'no one').str()}`;
}

function deleted(p: Wild): string {
  const title = issueTitle(p);
  const punctuation = PUNCTUATION.includes(title.slice(-1)) ? '' : '.';
  return `${author(p)} deleted ${issueLink(p, null, true)}${punctuation}`;
}

/** Jira escapes `!` as `\\!` in comment bodies. */
const normalizeComment = (c: string) => c.replaceAll('\\!', '!');

const commentEvent = (verb: string, wrap: (c: string) => string) => (p: Wild) =>
  `${p.at('comment').at('author').at('displayName').str()} ${verb} on issue: *"${issueTitle(p)}"*\n\`\`\` quote\n${wrap(normalizeComment(p.at('comment').at('body').str()))}\n\`\`\`\n`;

const CONTENT: Record<string, (p: Wild, directory: UserDirectory) => string> = {
  'jira:issue_created': created,
  'jira:issue_deleted': deleted,
  'jira:issue_updated': updated,
  comment_created: commentEvent('commented', (c) => c),
  comment_updated: commentEvent('updated their comment', (c) => c),
  comment_deleted: commentEvent('deleted their comment', (c) => `~~${c}~~`),
};

function handle(req: WebhookRequest): WebhookResult {
  const p = parseJsonBody(req.body ?? '');
  let event = p.get('webhookEvent').strOrNull();
  if (event === null && p.get('transition').truthy) event = 'jira:issue_updated';
  if (event !== null && IGNORED_EVENTS.includes(event)) return ignored();
  if (event === null) throw anomalousPayload(NAME);
  const content = ownEntry(CONTENT, event);
  if (!content) throw unsupportedEvent(NAME, event);
  return post(event, { topic: `${issueId(p)}: ${issueTitle(p)}`, content: content(p, req.directory) });
}

export const jira: Integration = { name: 'jira', displayName: NAME, unquoteUrlParameters: true, handle };
