// GitHub: the event from the X-GitHub-Event header, refined by the payload's action into
// Zulip's event names (which `only_events` / `exclude_events` filter on); one message per event.
import type { Integration, WebhookRequest, WebhookResult } from './types.js';
import { ignored, post } from './types.js';
import { ownEntry, parseJsonBody, type Wild } from './wild.js';
import { missingEventHeader, unsupportedEvent } from './errors.js';
import { boolParam } from './params.js';
import { checkSignature } from './signature.js';
import { branchNotifiable, topicWithBranch, topicWithPrOrIssue } from './git.js';
import { branchFromRef, GITHUB_BODIES, isPullRequestComment, repoName } from './githubBodies.js';

const NAME = 'GitHub';

const IGNORED_EVENTS = ['check_suite', 'label', 'meta', 'milestone', 'organization', 'project_card', 'push__merge_queue', 'repository_vulnerability_alert'];
const IGNORED_PULL_REQUEST_ACTIONS = ['approved', 'converted_to_draft', 'labeled', 'review_request_removed', 'unlabeled'];
const IGNORED_TEAM_ACTIONS = ['added_to_repository', 'created', 'deleted', 'removed_from_repository'];
const SPONSORS_EVENTS = ['cancelled', 'created', 'edited', 'pending_cancellation', 'pending_tier_change', 'tier_changed'];

const PULL_REQUEST_ACTIONS: Record<string, string> = {
  opened: 'opened_pull_request',
  reopened: 'opened_pull_request',
  synchronize: 'updated_pull_request',
  edited: 'updated_pull_request',
  assigned: 'assigned_or_unassigned_pull_request',
  unassigned: 'assigned_or_unassigned_pull_request',
  closed: 'closed_pull_request',
  review_requested: 'pull_request_review_requested',
  ready_for_review: 'pull_request_ready_for_review',
  locked: 'locked_or_unlocked_pull_request',
  unlocked: 'locked_or_unlocked_pull_request',
  auto_merge_enabled: 'pull_request_auto_merge',
  auto_merge_disabled: 'pull_request_auto_merge',
};

/** Zulip's event name for the header's event, null for events deliberately ignored. */
function zulipEvent(header: string, p: Wild, branches: string | undefined): string | null {
  switch (header) {
    case 'pull_request': {
      const action = p.at('action').str();
      const named = ownEntry(PULL_REQUEST_ACTIONS, action);
      if (named) return named;
      if (IGNORED_PULL_REQUEST_ACTIONS.includes(action)) return null;
      break;
    }
    case 'pull_request_review':
      // GitHub follows a review with an empty "edited" duplicate of its body.
      if (p.at('action').str() === 'edited' && p.get('changes', {}).length === 0) return null;
      return 'pull_request_review';
    case 'push': {
      const ref = p.at('ref').str();
      if (ref.startsWith('refs/heads/gh-readonly-queue/')) return null;
      if (!ref.startsWith('refs/heads/')) return 'push_tags';
      return branchNotifiable(branchFromRef(ref), branches) ? 'push_commits' : null;
    }
    case 'check_run':
      return p.at('check_run').at('status').str() === 'completed' ? 'check_run' : null;
    case 'team': {
      const action = p.at('action').str();
      if (action === 'edited') return 'team';
      if (IGNORED_TEAM_ACTIONS.includes(action)) return null;
      throw unsupportedEvent(NAME, `unsupported team action ${action}`);
    }
    case 'issues': {
      const action = p.at('action').str();
      if (action === 'labeled' || action === 'unlabeled') return 'issue_labeled_or_unlabeled';
      if (action === 'milestoned' || action === 'demilestoned') return 'issue_milestoned_or_demilestoned';
      if (action === 'transferred') return 'issues_transferred';
      if (action === 'opened' && p.get('changes', {}).get('old_issue').truthy) return 'issues_opened_via_transfer';
      return 'issues';
    }
    default:
      if (ownEntry(GITHUB_BODIES, header)) return header;
      if (IGNORED_EVENTS.includes(header)) return null;
  }
  throw unsupportedEvent(NAME, `${header}:${p.has('action') ? p.at('action').str() : '???'}`);
}

function topicFor(p: Wild, event: string): string {
  if (event.includes('pull_request')) {
    const pr = p.at('pull_request');
    return topicWithPrOrIssue(repoName(p), 'PR', pr.at('number').int(), pr.at('title').str());
  }
  if (event.startsWith('issue')) {
    const issue = p.at('issue');
    return topicWithPrOrIssue(repoName(p), isPullRequestComment(p) ? 'PR' : 'issue', issue.at('number').int(), issue.at('title').str());
  }
  if (event.startsWith('deployment')) return `${repoName(p)} / Deployment on ${p.at('deployment').at('environment').str()}`;
  if (event === 'membership') return `${p.at('organization').at('login').str()} organization`;
  if (event === 'team') return `team ${p.at('team').at('name').str()}`;
  if (event === 'push_commits') return topicWithBranch(repoName(p), branchFromRef(p.at('ref').str()));
  if (event === 'gollum') return topicWithBranch(repoName(p), 'wiki pages');
  if (event === 'ping' && !p.get('repository').truthy) return p.at('organization').at('login').str();
  if (event === 'check_run') return `${repoName(p)} / checks`;
  if (event.startsWith('discussion')) {
    const d = p.at('discussion');
    return `${repoName(p)} discussion #${d.at('number').int()}: ${d.at('title').str()}`;
  }
  if (SPONSORS_EVENTS.includes(event)) return 'sponsors';
  return repoName(p);
}

function handle(req: WebhookRequest): WebhookResult {
  checkSignature(req, 'X-Hub-Signature-256', 'sha256', 'sha256=');
  const p = parseJsonBody(req.body ?? '');
  const header = req.headers['x-github-event'];
  if (header === undefined) throw missingEventHeader('X-GitHub-Event');
  const ignorePrivate = boolParam(req.params, 'ignore_private_repositories', false);
  if (p.has('repository') && p.at('repository').at('private').bool() && ignorePrivate) {
    return ignored();
  }
  // An edited comment whose text did not change (discussion comments excepted).
  if (
    header.includes('comment') &&
    !header.includes('discussion') &&
    p.get('action', '').str() === 'edited' &&
    p.at('changes').at('body').at('from').str() === p.at('comment').at('body').str()
  ) {
    return ignored();
  }
  const event = zulipEvent(header, p, req.params.branches);
  if (event === null) return ignored();
  const content = ownEntry(GITHUB_BODIES, event)!({ payload: p, includeTitle: req.params.topic !== undefined });
  return post(event, { topic: topicFor(p, event), content });
}

export const github: Integration = { name: 'github', displayName: NAME, handle };
