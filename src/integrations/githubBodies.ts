// The message of each GitHub event (Zulip's GitHub integration, same words).
import type { Wild } from './wild.js';
import { pyStr } from './python.js';
import { badPayload } from './errors.js';
import {
  commitCommentMessage,
  issueMessage,
  labelMessage,
  milestoneMessage,
  pullRequestMessage,
  pushCommitsMessage,
  pushTagMessage,
  quoteBlock,
  releaseMessage,
  shortSha,
} from './git.js';

export interface GitHubContext {
  payload: Wild;
  /** A topic was given in the URL: titles go into the message instead. */
  includeTitle: boolean;
}

export const sender = (p: Wild) => p.at('sender').at('login').str();
const senderUrl = (p: Wild) => p.at('sender').at('html_url').str();
export const repoName = (p: Wild) => p.at('repository').at('name').str();
const repoFullName = (p: Wild) => p.at('repository').at('full_name').str();
const repoUrl = (p: Wild) => p.at('repository').at('html_url').str();
export const branchFromRef = (ref: string) => ref.replace(/^refs\/heads\//, '');
const tagFromRef = (ref: string) => ref.replace(/^refs\/tags\//, '');
/** A comment on a pull request arrives as an issue comment whose issue has a `pull_request`. */
export const isPullRequestComment = (p: Wild) => p.at('issue').has('pull_request');

function titleOf(ctx: GitHubContext, of: Wild): string | null {
  return ctx.includeTitle ? of.at('title').str() : null;
}

function commentAction(p: Wild): string {
  const action = p.at('action').str();
  const verb = action === 'created' ? '[commented]' : `${action} a [comment]`;
  return `${verb}(${p.at('comment').at('html_url').str()}) on`;
}

function openedOrUpdatedPullRequest(ctx: GitHubContext): string {
  const p = ctx.payload;
  const pr = p.at('pull_request');
  let action = p.at('action').str();
  if (action === 'synchronize') action = 'updated';
  const assignee = pr.get('assignee').truthy ? pr.at('assignee').at('login').str() : null;
  const changes = p.get('changes', {});
  const description = changes.has('body') || action === 'opened' ? pr.at('body').strOrNull() : null;
  const withBranches = action === 'opened' || action === 'merged';
  return pullRequestMessage({
    userName: sender(p),
    action,
    url: pr.at('html_url').str(),
    targetBranch: withBranches ? pr.at('head').at('label').str() : null,
    baseBranch: withBranches ? pr.at('base').at('label').str() : null,
    message: description,
    assignee,
    number: pr.at('number').int(),
    title: titleOf(ctx, pr),
  });
}

function assignedPullRequest(ctx: GitHubContext): string {
  const p = ctx.payload;
  const pr = p.at('pull_request');
  return pullRequestMessage({
    userName: sender(p),
    action: p.at('action').str(),
    url: pr.at('html_url').str(),
    number: pr.at('number').int(),
    title: titleOf(ctx, pr),
    assigneeUpdated: p.at('assignee').at('login').str(),
  });
}

function closedPullRequest(ctx: GitHubContext): string {
  const p = ctx.payload;
  const pr = p.at('pull_request');
  return pullRequestMessage({
    userName: sender(p),
    action: pr.at('merged').bool() ? 'merged' : 'closed without merge',
    url: pr.at('html_url').str(),
    number: pr.at('number').int(),
    title: titleOf(ctx, pr),
  });
}

function issue(ctx: GitHubContext): string {
  const p = ctx.payload;
  const action = p.at('action').str();
  const i = p.at('issue');
  return issueMessage({
    userName: sender(p),
    action,
    url: i.at('html_url').str(),
    number: i.at('number').int(),
    message: action === 'assigned' || action === 'unassigned' ? null : i.at('body').strOrNull(),
    title: titleOf(ctx, i),
    assigneeUpdated: p.has('assignee') ? p.at('assignee').at('login').str() : null,
  });
}

function issueComment(ctx: GitHubContext): string {
  const p = ctx.payload;
  const i = p.at('issue');
  return pullRequestMessage({
    userName: sender(p),
    action: commentAction(p),
    url: i.at('html_url').str(),
    number: i.at('number').int(),
    message: p.at('comment').at('body').str(),
    title: titleOf(ctx, i),
    type: isPullRequestComment(p) ? 'PR' : 'issue',
  });
}

function issueLabel(ctx: GitHubContext): string {
  const p = ctx.payload;
  const i = p.at('issue');
  return labelMessage({
    userName: sender(p),
    action: p.at('action').str() === 'labeled' ? 'added' : 'removed',
    url: i.at('html_url').str(),
    number: i.at('number').int(),
    label: p.at('label').at('name').str(),
    userUrl: senderUrl(p),
    title: titleOf(ctx, i),
  });
}

function issueMilestone(ctx: GitHubContext): string {
  const p = ctx.payload;
  const i = p.at('issue');
  return milestoneMessage({
    userName: sender(p),
    action: p.at('action').str() === 'milestoned' ? 'added' : 'removed',
    url: i.at('html_url').str(),
    number: i.at('number').int(),
    milestone: p.at('milestone').at('title').str(),
    milestoneUrl: p.at('milestone').at('html_url').str(),
    userUrl: senderUrl(p),
    title: titleOf(ctx, i),
  });
}

function issueTransferred({ payload: p }: GitHubContext): string {
  const changes = p.at('changes');
  return `${sender(p)} transferred [issue #${p.at('issue').at('number').int()} ${p.at('issue').at('title').str()}](${p.at('issue').at('html_url').str()}) to [${changes.at('new_repository').at('full_name').str()}/#${changes.at('new_issue').at('number').int()}](${changes.at('new_issue').at('html_url').str()}).`;
}

function issueOpenedViaTransfer({ payload: p }: GitHubContext): string {
  const i = p.at('issue');
  const changes = p.at('changes');
  return `[Issue #${i.at('number').int()} ${i.at('title').str()}](${i.at('html_url').str()}) was transferred from [${changes.at('old_repository').at('full_name').str()}#${changes.at('old_issue').at('number').int()}](${changes.at('old_issue').at('html_url').str()}).`;
}

function pushCommits({ payload: p }: GitHubContext): string {
  const commits = p.at('commits').list().map((c) => ({
    name: c.at('author').get('username').truthy ? c.at('author').at('username').str() : c.at('author').at('name').str(),
    sha: c.at('id').str(),
    url: c.at('url').str(),
    message: c.at('message').str(),
  }));
  return pushCommitsMessage({
    userName: sender(p),
    compareUrl: p.at('compare').str(),
    branch: branchFromRef(p.at('ref').str()),
    commits,
    deleted: p.at('deleted').bool(),
    forced: p.at('forced').bool(),
  });
}

const pushTags = ({ payload: p }: GitHubContext) =>
  pushTagMessage(sender(p), tagFromRef(p.at('ref').str()), null, p.at('created').bool() ? 'pushed' : 'removed');

function commitComment({ payload: p }: GitHubContext): string {
  const comment = p.at('comment');
  const commentUrl = comment.at('html_url').str();
  return commitCommentMessage(sender(p), `[commented](${commentUrl})`, commentUrl.split('#')[0]!, comment.at('commit_id').str(), comment.at('body').str());
}

function release({ payload: p }: GitHubContext): string {
  const r = p.at('release');
  const name = r.at('name').truthy ? r.at('name').str() : r.at('tag_name').str();
  return releaseMessage(sender(p), p.at('action').str(), r.at('tag_name').str(), name, r.at('html_url').str());
}

function checkRun({ payload: p }: GitHubContext): string {
  const run = p.at('check_run');
  const sha = run.at('head_sha').str();
  return `Check [${run.at('name').str()}](${run.at('html_url').str()}) ${run.at('status').str()} (${run.at('conclusion').str()}). ([${shortSha(sha)}](${repoUrl(p)}/commit/${sha}))`;
}

function pullRequestReview(ctx: GitHubContext): string {
  const p = ctx.payload;
  const pr = p.at('pull_request');
  return pullRequestMessage({
    userName: sender(p),
    action: 'submitted',
    url: p.at('review').at('html_url').str(),
    type: 'PR review',
    title: ctx.includeTitle ? `for #${pr.at('number').int()} ${pr.at('title').str()}` : null,
    message: p.at('review').at('body').strOrNull(),
  });
}

function pullRequestReviewComment(ctx: GitHubContext): string {
  const p = ctx.payload;
  const pr = p.at('pull_request');
  const action = p.at('action').str();
  return pullRequestMessage({
    userName: sender(p),
    action,
    url: p.at('comment').at('html_url').str(),
    message: action === 'created' ? p.at('comment').at('body').str() : null,
    type: 'PR review comment',
    title: ctx.includeTitle ? `on #${pr.at('number').int()} ${pr.at('title').str()}` : null,
  });
}

function reviewRequested(ctx: GitHubContext): string {
  const p = ctx.payload;
  const pr = p.at('pull_request');
  const reviewer = p.has('requested_reviewer')
    ? `[${p.at('requested_reviewer').at('login').str()}](${p.at('requested_reviewer').at('html_url').str()})`
    : `[${p.at('requested_team').at('name').str()}](${p.at('requested_team').at('html_url').str()})`;
  const prText = ctx.includeTitle ? `PR #${pr.at('number').int()} ${pr.at('title').str()}` : `PR #${pr.at('number').int()}`;
  return `**${sender(p)}** requested ${reviewer} for a review on [${prText}](${pr.at('html_url').str()}).`;
}

function lockedPullRequest({ payload: p }: GitHubContext): string {
  const pr = p.at('pull_request');
  const link = `[PR #${pr.at('number').int()}](${pr.at('html_url').str()})`;
  if (p.at('action').str() === 'unlocked') return `${sender(p)} has unlocked ${link}.`;
  const reason = pr.at('active_lock_reason').truthy ? pr.at('active_lock_reason').str() : null;
  return `${sender(p)} has locked ${link} as ${pyStr(reason)} and limited conversation to collaborators.`;
}

function autoMerge({ payload: p }: GitHubContext): string {
  const pr = p.at('pull_request');
  const verb = p.at('action').str() === 'auto_merge_disabled' ? 'disabled' : 'enabled';
  return `${sender(p)} has ${verb} auto merge for [PR #${pr.at('number').int()}](${pr.at('html_url').str()}).`;
}

const readyForReview = ({ payload: p }: GitHubContext) =>
  `**${sender(p)}** has marked [PR #${p.at('pull_request').at('number').int()}](${p.at('pull_request').at('html_url').str()}) as ready for review.`;

function team({ payload: p }: GitHubContext): string {
  const changes = p.at('changes');
  if (changes.has('description')) return `**${sender(p)}** changed the team description to:\n\n~~~ quote\n${p.at('team').at('description').str()}\n~~~`;
  if (changes.has('name')) return `Team \`${changes.at('name').at('from').str()}\` was renamed to \`${p.at('team').at('name').str()}\`.`;
  if (changes.has('privacy')) return `Team visibility changed to \`${p.at('team').at('privacy').str()}\``;
  return `Team has changes to \`${changes.keys().sort().join('/')}\` data.`;
}

function pageBuild({ payload: p }: GitHubContext): string {
  const build = p.at('build');
  const status = build.at('status').str();
  const actions: Record<string, string> = { null: 'has yet to be built', building: 'is being built', errored: 'has failed: {}', built: 'has finished building' };
  let action = actions[status] ?? `is ${status}`;
  if (build.at('error').at('message').truthy) action = action.replace('{}', quoteBlock(build.at('error').at('message').str()));
  return `GitHub Pages build, triggered by ${build.at('pusher').at('login').str()}, ${action}.`;
}

function status({ payload: p }: GitHubContext): string {
  const state = p.at('target_url').truthy ? `[${p.at('state').str()}](${p.at('target_url').str()})` : p.at('state').str();
  return `[${shortSha(p.at('sha').str())}](${p.at('commit').at('html_url').str()}) changed its status to ${state}.`;
}

function discussion({ payload: p }: GitHubContext): string {
  const d = p.at('discussion');
  return `${sender(p)} created [discussion #${d.at('number').int()}](${d.at('html_url').str()}) in ${d.at('category').at('name').str()}:\n\n~~~ quote\n### ${d.at('title').str()}\n${d.at('body').str()}\n~~~`;
}

function discussionComment(ctx: GitHubContext): string {
  const p = ctx.payload;
  const d = p.at('discussion');
  return pullRequestMessage({
    userName: sender(p),
    action: commentAction(p),
    url: d.at('html_url').str(),
    number: d.at('number').int(),
    message: p.at('comment').at('body').str(),
    title: titleOf(ctx, d),
    type: 'discussion',
  });
}

function wikiPages({ payload: p }: GitHubContext): string {
  const lines = p.at('pages').list().map((page) => `* ${page.at('action').str()} [${page.at('title').str()}](${page.at('html_url').str()})\n`);
  return `${sender(p)}:\n${lines.join('').replace(/\s+$/u, '')}`;
}

const sponsorTier = (p: Wild) => p.at('sponsorship').at('tier').at('name').str();
const priorTier = (p: Wild) => p.at('changes').at('tier').at('from').at('name').str();
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
function effectiveDate(p: Wild): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(p.at('effective_date').str());
  if (!m) throw badPayload(`${p.at('effective_date').path} is not a date`);
  return `${MONTHS[Number(m[2]) - 1]} ${m[3]}, ${m[1]}`;
}

/** Zulip's event name → the message for it. */
export const GITHUB_BODIES: Record<string, (ctx: GitHubContext) => string> = {
  commit_comment: commitComment,
  closed_pull_request: closedPullRequest,
  create: ({ payload: p }) => `${sender(p)} created ${p.at('ref_type').str()} ${p.at('ref').str()}.`.replace(/\s+$/u, ''),
  check_run: checkRun,
  delete: ({ payload: p }) => `${sender(p)} deleted ${p.at('ref_type').str()} ${p.at('ref').str()}.`.replace(/\s+$/u, ''),
  deployment: ({ payload: p }) => `${sender(p)} created new deployment.`,
  deployment_status: ({ payload: p }) => `Deployment changed status to ${p.at('deployment_status').at('state').str()}.`,
  discussion,
  discussion_comment: discussionComment,
  fork: ({ payload: p }) => `${sender(p)} forked [${p.at('forkee').at('name').str()}](${p.at('forkee').at('html_url').str()}).`,
  gollum: wikiPages,
  issue_comment: issueComment,
  issue_labeled_or_unlabeled: issueLabel,
  issue_milestoned_or_demilestoned: issueMilestone,
  issues_opened_via_transfer: issueOpenedViaTransfer,
  issues_transferred: issueTransferred,
  issues: issue,
  member: ({ payload: p }) =>
    `${sender(p)} ${p.at('action').str()} [${p.at('member').at('login').str()}](${p.at('member').at('html_url').str()}) to [${repoName(p)}](${repoUrl(p)}).`,
  membership: ({ payload: p }) => {
    const action = p.at('action').str();
    return `${sender(p)} ${action} [${p.at('member').at('login').str()}](${p.at('member').at('html_url').str()}) ${action === 'removed' ? 'from' : 'to'} the ${p.at('team').at('name').str()} team.`;
  },
  opened_pull_request: openedOrUpdatedPullRequest,
  updated_pull_request: openedOrUpdatedPullRequest,
  assigned_or_unassigned_pull_request: assignedPullRequest,
  page_build: pageBuild,
  ping: ({ payload: p }) => `GitHub webhook has been successfully configured by ${sender(p)}.`,
  public: ({ payload: p }) => `${sender(p)} made the repository [${repoFullName(p)}](${repoUrl(p)}) public.`,
  pull_request_ready_for_review: readyForReview,
  pull_request_review: pullRequestReview,
  pull_request_review_comment: pullRequestReviewComment,
  pull_request_review_requested: reviewRequested,
  pull_request_auto_merge: autoMerge,
  locked_or_unlocked_pull_request: lockedPullRequest,
  push_commits: pushCommits,
  push_tags: pushTags,
  release,
  repository: ({ payload: p }) => `${sender(p)} ${p.at('action').str()} the repository [${repoFullName(p)}](${repoUrl(p)}).`,
  star: ({ payload: p }) =>
    `[${sender(p)}](${senderUrl(p)}) ${p.at('action').str() === 'created' ? 'starred' : 'unstarred'} the repository [${repoFullName(p)}](${repoUrl(p)}).`,
  status,
  team,
  team_add: ({ payload: p }) => `The repository [${repoFullName(p)}](${repoUrl(p)}) was added to team ${p.at('team').at('name').str()}.`,
  watch: ({ payload: p }) => `${sender(p)} starred the repository [${repoFullName(p)}](${repoUrl(p)}).`,
  cancelled: ({ payload: p }) => `${sender(p)} cancelled their ${sponsorTier(p)} subscription.`,
  created: ({ payload: p }) => `${sender(p)} subscribed for ${sponsorTier(p)}.`,
  edited: ({ payload: p }) =>
    `${sender(p)} changed who can see their sponsorship from ${p.at('changes').at('privacy_level').at('from').str()} to ${p.at('sponsorship').at('privacy_level').str()}.`,
  pending_cancellation: ({ payload: p }) => `${sender(p)}'s ${sponsorTier(p)} subscription will be cancelled on ${effectiveDate(p)}.`,
  pending_tier_change: ({ payload: p }) =>
    `${sender(p)}'s subscription will change from ${priorTier(p)} to ${sponsorTier(p)} on ${effectiveDate(p)}.`,
  tier_changed: ({ payload: p }) => `${sender(p)} changed their subscription from ${priorTier(p)} to ${sponsorTier(p)}.`,
};
