// GitLab: the event from the X-Gitlab-Event header ("Push Hook", "Merge Request Hook" …),
// refined by the payload's action or noteable type, as Zulip's GitLab integration does.
import type { Integration, WebhookRequest, WebhookResult } from './types.js';
import { ignored, post } from './types.js';
import { ownEntry, parseJsonBody, type Wild } from './wild.js';
import { badPayload, missingEventHeader, unsupportedEvent } from './errors.js';
import { EMPTY_SHA, commitCommentMessage, issueMessage, pullRequestMessage, pushCommitsMessage, pushTagMessage, removeBranchMessage, topicWithPrOrIssue } from './git.js';

const NAME = 'GitLab';

const userName = (p: Wild) => p.at('user_name').str();
const issueUserName = (p: Wild) => p.at('user').at('name').str();
const branchName = (p: Wild) => p.at('ref').str().replaceAll('refs/heads/', '');
const objectUrl = (p: Wild) => p.at('object_attributes').at('url').str();

function repoName(p: Wild): string {
  // Job hooks have no `project`; the name is under `repository`.
  return p.has('project') ? p.at('project').at('name').str() : p.at('repository').at('name').str();
}

function projectHomepage(p: Wild): string {
  return p.has('project') ? p.at('project').at('web_url').str() : p.at('repository').at('homepage').str();
}

function pushBody(p: Wild): string {
  const after = p.get('after');
  if (after.truthy && after.str() === EMPTY_SHA) return removeBranchMessage(userName(p), branchName(p));
  const compareUrl = `${projectHomepage(p)}/-/compare/${p.at('before').str()}...${p.at('after').str()}`;
  const commits = p.at('commits').list().map((c) => ({
    name: c.at('author').at('name').str(),
    sha: c.at('id').str(),
    message: c.at('message').str(),
    url: c.at('url').str(),
  }));
  return pushCommitsMessage({ userName: userName(p), compareUrl, branch: branchName(p), commits });
}

/** Assignees by name (GitLab sends `assignees`, or a single `assignee` in older versions). */
function assignees(p: Wild): string[] {
  const many = p.get('assignees');
  if (many.truthy) return many.list().map((a) => a.at('name').str());
  const one = p.get('assignee');
  return one.truthy ? [one.at('name').str()] : [];
}

const titleIf = (include: boolean, of: Wild) => (include ? of.at('title').str() : null);

function issueCreated(p: Wild, includeTitle: boolean): string {
  const description = p.at('object_attributes').get('description');
  // Multi-line hidden comments are left out.
  const text = description.truthy ? description.str().replace(/<!--[\s\S]*?-->/g, '').replace(/\s+$/u, '') : null;
  return issueMessage({
    userName: issueUserName(p),
    action: 'created',
    url: objectUrl(p),
    number: p.at('object_attributes').at('iid').int(),
    message: text,
    assignees: assignees(p),
    title: titleIf(includeTitle, p.at('object_attributes')),
  });
}

const issueEvent = (action: string) => (p: Wild, includeTitle: boolean) =>
  issueMessage({
    userName: issueUserName(p),
    action,
    url: objectUrl(p),
    number: p.at('object_attributes').at('iid').int(),
    title: titleIf(includeTitle, p.at('object_attributes')),
  });

const mergeRequestEvent = (action: string) => (p: Wild, includeTitle: boolean) => {
  const mr = p.at('object_attributes');
  const merged = action === 'merged';
  return pullRequestMessage({
    userName: issueUserName(p),
    action,
    url: mr.at('url').str(),
    number: mr.at('iid').int(),
    targetBranch: merged ? mr.at('source_branch').str() : null,
    baseBranch: merged ? mr.at('target_branch').str() : null,
    type: 'MR',
    title: titleIf(includeTitle, mr),
  });
};

const mergeRequestOpenedOrUpdated = (action: string) => (p: Wild, includeTitle: boolean) => {
  const mr = p.at('object_attributes');
  const created = action === 'created';
  return pullRequestMessage({
    userName: issueUserName(p),
    action,
    url: mr.at('url').str(),
    number: mr.at('iid').int(),
    targetBranch: created ? mr.at('source_branch').str() : null,
    baseBranch: created ? mr.at('target_branch').str() : null,
    message: mr.at('description').strOrNull(),
    assignees: assignees(p),
    type: 'MR',
    title: titleIf(includeTitle, mr),
  });
};

function mergeRequestUpdated(p: Wild, includeTitle: boolean): string {
  if (p.at('object_attributes').get('oldrev').truthy) return mergeRequestEvent('added commit(s) to')(p, includeTitle);
  return mergeRequestOpenedOrUpdated('updated')(p, includeTitle);
}

const commentedOn = (p: Wild) => `[commented](${p.at('object_attributes').at('url').str()}) on`;

function noteOn(p: Wild, includeTitle: boolean, key: 'merge_request' | 'issue', type: string): string {
  const target = p.at(key);
  return pullRequestMessage({
    userName: issueUserName(p),
    action: commentedOn(p),
    url: target.at('url').str(),
    number: target.at('iid').int(),
    message: p.at('object_attributes').at('note').str(),
    type,
    title: titleIf(includeTitle, target),
  });
}

function snippetNote(p: Wild, includeTitle: boolean): string {
  const snippet = p.at('snippet');
  // The snippet's URL is in payloads of GitLab 16.1 and later.
  const url = snippet.has('url') ? snippet.at('url').str() : `${p.at('project').at('web_url').str()}/-/snippets/${snippet.at('id').int()}`;
  return pullRequestMessage({
    userName: issueUserName(p),
    action: commentedOn(p),
    url,
    number: snippet.at('id').int(),
    message: p.at('object_attributes').at('note').str(),
    type: 'snippet',
    title: titleIf(includeTitle, snippet),
  });
}

function buildBody(p: Wild): string {
  const status = p.at('build_status').str();
  const action = status === 'created' ? 'was created' : status === 'running' ? 'started' : `changed status to ${status}`;
  return `Build ${p.at('build_name').str()} from ${p.at('build_stage').str()} stage ${action}.`;
}

function pipelineBody(p: Wild): string {
  const attrs = p.at('object_attributes');
  const status = attrs.at('status').str();
  const action = status === 'pending' ? 'was created' : status === 'running' ? 'started' : `changed status to ${status}`;
  const home = projectHomepage(p);
  let builds = '';
  for (const build of p.at('builds').list()) {
    const url = `${home}/-/jobs/${build.at('id').int()}`;
    const artifact = build.get('artifacts_file', {}).get('filename');
    const artifactLine = artifact.truthy
      ? `  * built artifact: *${artifact.str()}* [[Browse](${url}/artifacts/browse)|[Download](${url}/artifacts/download)]\n`
      : '';
    builds += `* [${build.at('name').str()}](${url}) - ${build.at('status').str()}\n${artifactLine}`;
  }
  const id = attrs.at('id').int();
  return `[Pipeline (${id})](${home}/-/pipelines/${id}) ${action} with build(s):\n${builds.slice(0, -1)}.`;
}

type Body = (p: Wild, includeTitle: boolean) => string;

const BODIES: Record<string, Body> = {
  'Push Hook': pushBody,
  'Tag Push Hook': (p) => pushTagMessage(userName(p), p.at('ref').str().replaceAll('refs/tags/', ''), null, p.get('checkout_sha').truthy ? 'pushed' : 'removed'),
  'Test Hook': (p) => `Webhook for **${repoName(p)}** has been configured successfully! :tada:`,
  'Issue Hook open': issueCreated,
  'Issue Hook close': issueEvent('closed'),
  'Issue Hook reopen': issueEvent('reopened'),
  'Issue Hook update': issueEvent('updated'),
  'Confidential Issue Hook open': issueCreated,
  'Confidential Issue Hook close': issueEvent('closed'),
  'Confidential Issue Hook reopen': issueEvent('reopened'),
  'Confidential Issue Hook update': issueEvent('updated'),
  'Note Hook Commit': (p) => {
    const c = p.at('object_attributes');
    return commitCommentMessage(issueUserName(p), `[commented](${c.at('url').str()})`, p.at('commit').at('url').str(), p.at('commit').at('id').str(), c.at('note').str());
  },
  'Note Hook MergeRequest': (p, t) => noteOn(p, t, 'merge_request', 'MR'),
  'Note Hook Issue': (p, t) => noteOn(p, t, 'issue', 'issue'),
  'Confidential Note Hook Issue': (p, t) => noteOn(p, t, 'issue', 'issue'),
  'Note Hook Snippet': snippetNote,
  'Merge Request Hook approved': mergeRequestEvent('approved'),
  'Merge Request Hook unapproved': mergeRequestEvent('unapproved'),
  'Merge Request Hook open': mergeRequestOpenedOrUpdated('created'),
  'Merge Request Hook update': mergeRequestUpdated,
  'Merge Request Hook merge': mergeRequestEvent('merged'),
  'Merge Request Hook close': mergeRequestEvent('closed'),
  'Merge Request Hook reopen': mergeRequestEvent('reopened'),
  'Wiki Page Hook create': (p) => `${issueUserName(p)} created [wiki page "${p.at('object_attributes').at('title').str()}"](${objectUrl(p)}).`,
  'Wiki Page Hook update': (p) => `${issueUserName(p)} updated [wiki page "${p.at('object_attributes').at('title').str()}"](${objectUrl(p)}).`,
  'Job Hook': buildBody,
  'Build Hook': buildBody,
  'Pipeline Hook': pipelineBody,
};

function topicFor(event: string, p: Wild, useMergeRequestTitle: boolean): string {
  if (event === 'Push Hook') return `${repoName(p)} / ${branchName(p)}`;
  if (event === 'Job Hook' || event === 'Build Hook') return `${p.at('repository').at('name').str()} / ${branchName(p)}`;
  if (event === 'Pipeline Hook') return `${repoName(p)} / ${p.at('object_attributes').at('ref').str().replaceAll('refs/heads/', '')}`;
  if (event.startsWith('Merge Request Hook')) {
    const mr = p.at('object_attributes');
    return topicWithPrOrIssue(repoName(p), 'MR', mr.at('iid').int(), useMergeRequestTitle ? mr.at('title').str() : '');
  }
  if (event.startsWith('Issue Hook') || event.startsWith('Confidential Issue Hook')) {
    const issue = p.at('object_attributes');
    return topicWithPrOrIssue(repoName(p), 'issue', issue.at('iid').int(), issue.at('title').str());
  }
  if (event === 'Note Hook Issue' || event === 'Confidential Note Hook Issue') {
    return topicWithPrOrIssue(repoName(p), 'issue', p.at('issue').at('iid').int(), p.at('issue').at('title').str());
  }
  if (event === 'Note Hook MergeRequest') {
    const mr = p.at('merge_request');
    return topicWithPrOrIssue(repoName(p), 'MR', mr.at('iid').int(), useMergeRequestTitle ? mr.at('title').str() : '');
  }
  if (event === 'Note Hook Snippet') return topicWithPrOrIssue(repoName(p), 'snippet', p.at('snippet').at('id').int(), p.at('snippet').at('title').str());
  return repoName(p);
}

/** The event, or null for a push to a branch the URL filters out. */
function eventOf(req: WebhookRequest, p: Wild): string | null {
  let event = req.headers['x-gitlab-event'];
  if (event === undefined) throw missingEventHeader('X-GitLab-Event');
  if (event === 'System Hook') {
    const name = p.has('event_name') ? p.at('event_name').str() : p.at('object_kind').str();
    const title = name.split('__')[0]!.replace(/_/g, ' ').replace(/\S+/g, (w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase());
    event = `${title} Hook`;
  }
  if (['Confidential Issue Hook', 'Issue Hook', 'Merge Request Hook', 'Wiki Page Hook'].includes(event)) {
    event = `${event} ${p.at('object_attributes').get('action', 'open').str()}`;
  } else if (event === 'Confidential Note Hook' || event === 'Note Hook') {
    event = `${event} ${p.at('object_attributes').at('noteable_type').str()}`;
  } else if (event === 'Push Hook' && req.params.branches !== undefined) {
    // Zulip looks the branch up as a substring of the `branches` parameter.
    if (!req.params.branches.includes(branchName(p))) return null;
  }
  if (ownEntry(BODIES, event)) return event;
  throw unsupportedEvent(NAME, event);
}

function useMergeRequestTitle(params: Record<string, string>): boolean {
  const raw = params.use_merge_request_title;
  if (raw === undefined || raw === 'true') return true;
  if (raw === 'false') return false;
  throw badPayload('use_merge_request_title is not a boolean');
}

function handle(req: WebhookRequest): WebhookResult {
  const p = parseJsonBody(req.body ?? '');
  const useTitle = useMergeRequestTitle(req.params);
  const event = eventOf(req, p);
  if (event === null) return ignored();
  const userTopic = req.params.topic;
  let content = ownEntry(BODIES, event)!(p, userTopic !== undefined);
  // With a topic of the user's choosing, the message names its project.
  if (userTopic) content = `[[${repoName(p)}](${projectHomepage(p)})] ${content}`;
  return post(event, { topic: topicFor(event, p, useTitle), content });
}

export const gitlab: Integration = { name: 'gitlab', displayName: NAME, handle };
