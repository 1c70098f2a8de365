// Gitea and Forgejo (Gitea's fork): the event from X-Gitea-Event (Forgejo sends it too), with
// the messages of Zulip's Gitea integration, which shares Gogs' handling.
import type { Integration, WebhookRequest, WebhookResult } from './types.js';
import { ignored, post } from './types.js';
import { parseJsonBody, type Wild } from './wild.js';
import { missingEventHeader, unsupportedEvent } from './errors.js';
import {
  branchNotifiable,
  createBranchMessage,
  issueMessage,
  pullRequestMessage,
  pushCommitsMessage,
  releaseMessage,
  topicWithBranch,
  topicWithPrOrIssue,
  topicWithRelease,
} from './git.js';

const issueUrl = (p: Wild, number: number) => `${p.at('repository').at('html_url').str()}/issues/${number}`;

function pushBody(p: Wild): string {
  const commits = p.at('commits').list().map((c) => ({
    // An author without a user name is named by the first word of their name.
    name: c.at('author').at('username').str() || (c.at('author').at('name').str().trim().split(/\s+/)[0] ?? ''),
    sha: c.at('id').str(),
    url: c.at('url').str(),
    message: c.at('message').str(),
  }));
  return pushCommitsMessage({
    userName: p.at('sender').at('username').str(),
    compareUrl: p.at('compare_url').str(),
    branch: p.at('ref').str().replaceAll('refs/heads/', ''),
    commits,
  });
}

function pullRequestBody(p: Wild, includeTitle: boolean): string {
  const pr = p.at('pull_request');
  const merged = pr.at('merged').bool();
  const userName = merged ? pr.at('merged_by').at('username').str() : pr.at('user').at('username').str();
  const action = merged ? 'merged' : p.at('action').str();
  const withBranches = action !== 'edited';
  const assignee = pr.at('assignee');
  return pullRequestMessage({
    userName,
    action,
    url: pr.at('html_url').str(),
    number: pr.at('number').int(),
    targetBranch: withBranches && pr.has('head') ? pr.at('head').at('ref').str() : null,
    baseBranch: withBranches && pr.has('base') ? pr.at('base').at('ref').str() : null,
    title: includeTitle ? pr.at('title').str() : null,
    assignee: assignee.truthy ? assignee.at('login').str() : null,
  });
}

function issuesBody(p: Wild, includeTitle: boolean): string {
  const issue = p.at('issue');
  const number = issue.at('number').int();
  const assignee = issue.at('assignee').truthy ? issue.at('assignee').at('login').str() : null;
  const action = p.at('action').str();
  return issueMessage({
    userName: p.at('sender').at('login').str(),
    action,
    url: issueUrl(p, number),
    number,
    message: issue.at('body').str(),
    assignee,
    title: includeTitle ? issue.at('title').str() : null,
    assigneeUpdated: action === 'assigned' ? assignee : null,
  });
}

function commentAction(p: Wild): string {
  const action = p.at('action').str();
  return `${action === 'created' ? '[commented]' : `${action} a [comment]`}(${p.at('comment').at('html_url').str()}) on`;
}

function issueCommentBody(p: Wild, includeTitle: boolean, eventType: string): { body: string; type: string } {
  const issue = p.at('issue');
  if (eventType === 'pull_request_comment') {
    const body = pullRequestMessage({
      userName: p.at('sender').at('login').str(),
      action: commentAction(p),
      url: issue.at('html_url').str(),
      number: issue.at('number').int(),
      message: p.at('comment').at('body').str(),
      type: 'PR',
      title: issue.at('title').str(),
    });
    return { body, type: 'PR' };
  }
  const number = issue.at('number').int();
  const body = issueMessage({
    userName: p.at('sender').at('login').str(),
    action: commentAction(p),
    url: issueUrl(p, number),
    number,
    message: p.at('comment').at('body').str(),
    title: includeTitle ? issue.at('title').str() : null,
  });
  return { body, type: 'issue' };
}

function handle(name: string, req: WebhookRequest): WebhookResult {
  const p = parseJsonBody(req.body ?? '');
  const repo = p.at('repository').at('name').str();
  // Forgejo sends its own headers and, for compatibility, Gitea's.
  const event = (name === 'Forgejo' ? req.headers['x-forgejo-event'] : undefined) ?? req.headers['x-gitea-event'];
  if (event === undefined) throw missingEventHeader(name === 'Forgejo' ? 'X-Forgejo-Event' : 'X-Gitea-Event');
  const eventType = req.headers['x-forgejo-event-type'] ?? req.headers['x-gitea-event-type'] ?? 'default_event_type';
  const includeTitle = req.params.topic !== undefined;
  switch (event) {
    case 'push': {
      const branch = p.at('ref').str().replaceAll('refs/heads/', '');
      if (!branchNotifiable(branch, req.params.branches)) return ignored();
      return post(event, { topic: topicWithBranch(repo, branch), content: pushBody(p) });
    }
    case 'create': {
      const ref = p.at('ref').str();
      const content = createBranchMessage(p.at('sender').at('username').str(), `${p.at('repository').at('html_url').str()}/src/${ref}`, ref);
      return post(event, { topic: topicWithBranch(repo, ref), content });
    }
    case 'pull_request': {
      const pr = p.at('pull_request');
      const topic = topicWithPrOrIssue(repo, 'PR', pr.at('id').int(), pr.at('title').str());
      return post(event, { topic, content: pullRequestBody(p, includeTitle) });
    }
    case 'issues': {
      const issue = p.at('issue');
      const topic = topicWithPrOrIssue(repo, 'issue', issue.at('number').int(), issue.at('title').str());
      return post(event, { topic, content: issuesBody(p, includeTitle) });
    }
    case 'issue_comment': {
      const { body, type } = issueCommentBody(p, includeTitle, eventType);
      const issue = p.at('issue');
      return post(event, { topic: topicWithPrOrIssue(repo, type, issue.at('number').int(), issue.at('title').str()), content: body });
    }
    case 'release': {
      const r = p.at('release');
      const content = releaseMessage(r.at('author').at('username').str(), p.at('action').str(), r.at('tag_name').str(), r.at('name').str(), p.at('repository').at('html_url').str());
      return post(event, { topic: topicWithRelease(repo, r.at('tag_name').str(), r.at('name').str()), content });
    }
    default:
      throw unsupportedEvent(name, event);
  }
}

export const gitea: Integration = { name: 'gitea', displayName: 'Gitea', handle: (req) => handle('Gitea', req) };
export const forgejo: Integration = { name: 'forgejo', displayName: 'Forgejo', handle: (req) => handle('Forgejo', req) };
