// Message templates shared by the Git hosting integrations (GitHub, GitLab, Gitea), worded as
// Zulip's so that the same events read the same.
import { PUNCTUATION, pyStr } from './python.js';
import { ownEntry } from './wild.js';

export const topicWithBranch = (repo: string, branch: string) => `${repo} / ${branch}`;
export const topicWithPrOrIssue = (repo: string, type: string, id: number | string, title: string) => `${repo} / ${type} #${id} ${title}`;
export const topicWithRelease = (repo: string, tag: string, title: string) => `${repo} / ${tag} ${title}`;

export const EMPTY_SHA = '0000000000000000000000000000000000000000';
export const COMMITS_LIMIT = 20;
const PUSH_COMMITTERS_LIMIT = 3;

export const quoteBlock = (message: string) => `\n~~~ quote\n${message}\n~~~`;
export const shortSha = (sha: string) => sha.slice(0, 11);

export interface CommitInfo {
  name: string;
  sha: string;
  url: string | null;
  message: string;
}

/** Committers by number of commits (ties alphabetically), the tail folded into "others". */
function committersOf(commits: CommitInfo[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const c of commits) counts.set(c.name, (counts.get(c.name) ?? 0) + 1);
  let items = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (items.length > PUSH_COMMITTERS_LIMIT) {
    const others = items.slice(PUSH_COMMITTERS_LIMIT).reduce((n, [, c]) => n + c, 0);
    items = [...items.slice(0, PUSH_COMMITTERS_LIMIT), ['others', others]];
  }
  return items;
}

export function commitsContent(commits: CommitInfo[], truncated = false): string {
  let out = '';
  for (const c of commits.slice(0, COMMITS_LIMIT)) {
    out += `* ${c.message.split('\n')[0]} ([${shortSha(c.sha)}](${c.url ?? 'None'}))\n`;
  }
  if (commits.length > COMMITS_LIMIT) out += `[and ${commits.length - COMMITS_LIMIT} more commit(s)]`;
  else if (truncated) out += '[and more commit(s)]';
  return out.replace(/\s+$/u, '');
}

export interface PushOptions {
  userName: string;
  compareUrl: string | null;
  branch: string;
  commits: CommitInfo[];
  truncated?: boolean;
  deleted?: boolean;
  forced?: boolean;
}

export function pushCommitsMessage(o: PushOptions): string {
  const { userName, compareUrl, branch, commits } = o;
  if (commits.length === 0 && o.deleted) return `${userName} [deleted](${compareUrl}) the branch ${branch}.`;
  const pushType = o.forced ? 'force pushed' : 'pushed';
  if (commits.length === 0) {
    return compareUrl ? `${userName} [${pushType}](${compareUrl}) the branch ${branch}.` : `${userName} ${pushType} the branch ${branch}.`;
  }
  const count = `${commits.length} commit${commits.length > 1 ? 's' : ''}`;
  const pushed = compareUrl ? `[${pushType}](${compareUrl}) ${count}` : `${pushType} ${count}`;
  const base = `${userName} ${pushed} to branch ${branch}.`;
  const committers = committersOf(commits);
  const list = commitsContent(commits, o.truncated);
  if (committers.length === 1 && committers[0]![0] === userName) return `${base}\n\n${list}`.replace(/\s+$/u, '');
  let details = `${committers[0]![0]} (${committers[0]![1]})`;
  for (const [name, n] of committers.slice(1, -1)) details = `${details}, ${name} (${n})`;
  if (committers.length > 1) {
    const [name, n] = committers[committers.length - 1]!;
    details = `${details} and ${name} (${n})`;
  }
  return `${base} Commits by ${details}.\n\n${list}`.replace(/\s+$/u, '');
}

export const createBranchMessage = (userName: string, url: string | null, branch: string) =>
  url === null ? `${userName} created ${branch} branch.` : `${userName} created [${branch}](${url}) branch.`;

export const removeBranchMessage = (userName: string, branch: string) => `${userName} deleted branch ${branch}.`;

export interface PullRequestOptions {
  userName: string;
  action: string;
  url: string;
  number?: number | null;
  targetBranch?: string | null;
  baseBranch?: string | null;
  message?: string | null;
  assignee?: string | null;
  /** Assignees as names, joined "a, b and c". */
  assignees?: string[];
  assigneeUpdated?: string | null;
  reviewer?: string | null;
  type?: string;
  title?: string | null;
}

const ACTION_WORDS: Record<string, string> = { approval: 'added their approval for', unapproval: 'removed their approval for' };

function assigneeList(names: string[]): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Zulip's get_pull_request_event_message (also used for issues, reviews and comments). */
export function pullRequestMessage(o: PullRequestOptions): string {
  const type = o.type ?? 'PR';
  const id = o.number !== undefined && o.number !== null ? ` #${o.number}` : '';
  const title = o.title !== undefined && o.title !== null ? ` ${o.title}` : '';
  const assigneePart = o.action === 'assigned' ? ` ${pyStr(o.assigneeUpdated)} to` : o.action === 'unassigned' ? ` ${pyStr(o.assigneeUpdated)} from` : '';
  let main = `${o.userName} ${ownEntry(ACTION_WORDS, o.action) ?? o.action}${assigneePart} [${type}${id}${title}](${o.url})`;
  if (o.targetBranch && o.baseBranch) main = `${main} from \`${o.targetBranch}\` to \`${o.baseBranch}\``;
  const assignees = o.assignees && o.assignees.length > 0 ? o.assignees : null;
  if (assignees) main = `${main} (assigned to ${assigneeList(assignees)})`;
  else if (o.assignee) main = `${main} (assigned to ${o.assignee})`;
  else if (o.reviewer) main = `${main} (assigned reviewers: ${o.reviewer})`;
  const punctuation = o.message ? ':' : '.';
  const titleText = o.title ?? null;
  if (assignees || o.assignee || (o.targetBranch && o.baseBranch) || titleText === null || !PUNCTUATION.includes(titleText.slice(-1))) {
    main = `${main}${punctuation}`;
  }
  if (o.message) main += '\n' + quoteBlock(o.message);
  return main.replace(/\s+$/u, '');
}

export const issueMessage = (o: Omit<PullRequestOptions, 'type' | 'targetBranch' | 'baseBranch' | 'reviewer'>) =>
  pullRequestMessage({ ...o, type: 'issue' });

export function labelMessage(o: { userName: string; action: 'added' | 'removed'; url: string; number: number; label: string; userUrl: string; title: string | null }): string {
  const preposition = o.action === 'added' ? 'to' : 'from';
  const issue = o.title !== null ? `Issue #${o.number} ${o.title}` : `Issue #${o.number}`;
  return `[${o.userName}](${o.userUrl}) ${o.action} the ${o.label} label ${preposition} [${issue}](${o.url}).`;
}

export function milestoneMessage(o: {
  userName: string;
  action: 'added' | 'removed';
  url: string;
  number: number;
  milestone: string;
  milestoneUrl: string;
  userUrl: string;
  title: string | null;
}): string {
  const preposition = o.action === 'added' ? 'to' : 'from';
  const issue = o.title !== null ? `issue #${o.number} ${o.title}` : `issue #${o.number}`;
  return `[${o.userName}](${o.userUrl}) ${o.action} milestone [${o.milestone}](${o.milestoneUrl}) ${preposition} [${issue}](${o.url}).`;
}

export function pushTagMessage(userName: string, tag: string, tagUrl: string | null = null, action = 'pushed'): string {
  const tagPart = tagUrl ? `[${tag}](${tagUrl})` : tag;
  const message = `${userName} ${action} tag ${tagPart}`;
  return PUNCTUATION.includes(tag.slice(-1)) ? message : `${message}.`;
}

export function commitCommentMessage(userName: string, action: string, commitUrl: string, sha: string, message: string | null): string {
  let content = `${userName} ${action} on [${shortSha(sha)}](${commitUrl})${message ? ':' : '.'}`;
  if (message) content += quoteBlock(message);
  return content;
}

export const releaseMessage = (userName: string, action: string, tag: string, releaseName: string, url: string) =>
  `${userName} ${action} release [${releaseName}](${url}) for tag ${tag}.`;

/** Zulip's is_branch_name_notifiable: no filter, or the branch is one of the comma-separated names. */
export function branchNotifiable(branch: string, branches: string | undefined): boolean {
  return branches === undefined || branches.split(',').some((b) => b.trim() === branch);
}
