// The GitHub integration: Zulip's topics and messages for GitHub's payloads, its event
// filters, ignored and unsupported events, and signed payloads.
import { createHmac } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import * as gh from '../fixtures/webhooks/github.js';
import { expectNothingPosted, expectPosted, hookRealm, latest, DMS, type HookRealm } from './integrations-support.js';
import { expectError } from './channels-helpers.js';

let realm: HookRealm;

beforeAll(async () => {
  realm = await hookRealm('github');
});

const event = (name: string) => ({ 'X-GitHub-Event': name });
const COMMIT_LINE = '* Update README.md ([0d1a26e67d8](https://github.com/baxterthehacker/public-repo/commit/0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c))\n';
const PUSHED = 'baxterthehacker [pushed](https://github.com/baxterthehacker/public-repo/compare/9049f1265b7d...0d1a26e67d8f)';

describe('GitHub', () => {
  it('ping', async () => {
    const m = await expectPosted(realm, 'github', { body: gh.ping, headers: event('ping') });
    expect(m.topic).toBe('public-repo');
    expect(m.content).toBe('GitHub webhook has been successfully configured by TomaszKolek.');
    expect(m.client).toBe('ZulipGitHubWebhook');
  });

  it('issues and comments', async () => {
    let m = await expectPosted(realm, 'github', { body: gh.issues, headers: event('issues') });
    expect(m.topic).toBe('public-repo / issue #2 Spelling error in the README file');
    expect(m.content).toBe(
      "baxterthehacker opened [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nIt looks like you accidentally spelled 'commit' with two 't's.\n~~~",
    );
    m = await expectPosted(realm, 'github', { body: gh.issueComment, headers: event('issue_comment') });
    expect(m.topic).toBe('public-repo / issue #2 Spelling error in the README file');
    expect(m.content).toBe(
      "baxterthehacker [commented](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140) on [issue #2](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~",
    );
  });

  it('names the issue in the message when the URL fixes the topic', async () => {
    const m = await expectPosted(realm, 'github', { body: gh.issueComment, headers: event('issue_comment'), query: { topic: 'notifications' } });
    expect(m.topic).toBe('notifications');
    expect(m.content).toBe(
      "baxterthehacker [commented](https://github.com/baxterthehacker/public-repo/issues/2#issuecomment-99262140) on [issue #2 Spelling error in the README file](https://github.com/baxterthehacker/public-repo/issues/2):\n\n~~~ quote\nYou are totally right! I'll get this fixed right away.\n~~~",
    );
  });

  it('pull requests', async () => {
    let m = await expectPosted(realm, 'github', { body: gh.pullRequestOpened, headers: event('pull_request') });
    expect(m.topic).toBe('public-repo / PR #1 Update the README with new information');
    expect(m.content).toBe(
      'baxterthehacker opened [PR #1](https://github.com/baxterthehacker/public-repo/pull/1) from `baxterthehacker:changes` to `baxterthehacker:master`:\n\n~~~ quote\nThis is a pretty simple change that we need to pull into master.\n~~~',
    );
    m = await expectPosted(realm, 'github', { body: gh.pullRequestClosed, headers: event('pull_request'), query: { topic: 'notifications' } });
    expect(m.topic).toBe('notifications');
    expect(m.content).toBe(
      'baxterthehacker closed without merge [PR #1 Update the README with new information](https://github.com/baxterthehacker/public-repo/pull/1).',
    );
  });

  it('pushes: committers, long lists, new branches', async () => {
    let m = await expectPosted(realm, 'github', { body: gh.push1Commit, headers: event('push') });
    expect(m.topic).toBe('public-repo / changes');
    expect(m.content).toBe(`${PUSHED} 1 commit to branch changes.\n\n${COMMIT_LINE.trimEnd()}`);
    m = await expectPosted(realm, 'github', { body: gh.pushMultipleCommittersWithOthers, headers: event('push') });
    expect(m.content).toBe(
      `${PUSHED} 10 commits to branch changes. Commits by Tomasz (4), Ben (3), James (2) and others (1).\n\n${COMMIT_LINE.repeat(10).trimEnd()}`,
    );
    m = await expectPosted(realm, 'github', { body: gh.push50Commits, headers: event('push') });
    expect(m.content).toBe(`${PUSHED} 50 commits to branch changes.\n\n${COMMIT_LINE.repeat(20)}[and 30 more commit(s)]`);
    m = await expectPosted(realm, 'github', { body: gh.pushLocalBranchWithoutCommits, headers: event('push') });
    expect(m.topic).toBe('public-repo / feature');
    expect(m.content).toBe('eeshangarg [pushed](https://github.com/eeshangarg/public-repo/compare/feature) the branch feature.');
  });

  it('filters pushes by branch', async () => {
    const m = await expectPosted(realm, 'github', { body: gh.push1Commit, headers: event('push'), query: { branches: 'master,changes' } });
    expect(m.topic).toBe('public-repo / changes');
    const r = await expectNothingPosted(realm, 'github', { body: gh.push1Commit, headers: event('push'), query: { branches: 'master,development' } });
    expect(r.body).toEqual({ result: 'success', msg: '' });
  });

  it('releases, milestones (topics are cut at 60 characters), check runs', async () => {
    let m = await expectPosted(realm, 'github', { body: gh.release, headers: event('release') });
    expect(m.topic).toBe('public-repo');
    expect(m.content).toBe(
      'baxterthehacker published release [0.0.1](https://github.com/baxterthehacker/public-repo/releases/tag/0.0.1) for tag 0.0.1.',
    );
    m = await expectPosted(realm, 'github', { body: gh.issuesMilestoned, headers: event('issues') });
    expect(m.topic).toBe('testing-gh / issue #6 This is a sample issue to test GH I...');
    expect(m.content).toBe(
      '[sbansal1999](https://github.com/sbansal1999) added milestone [some_random_milestone](https://github.com/sbansal1999/testing-gh/milestone/1) to [issue #6](https://github.com/sbansal1999/testing-gh/issues/6).',
    );
    m = await expectPosted(realm, 'github', { body: gh.checkRun('completed'), headers: event('check_run') });
    expect(m.topic).toBe('hello-world / checks');
    expect(m.content).toBe(
      'Check [randscape](http://github.com/github/hello-world/runs/4) completed (success). ([d6fde92930d](http://github.com/github/hello-world/commit/d6fde92930d4715a2b49857d24b940956b26d2d3))',
    );
  });

  it('ignores what Zulip ignores', async () => {
    const quiet = [
      { body: gh.checkRun('in_progress'), headers: event('check_run') },
      { body: { action: 'labeled' }, headers: event('pull_request') },
      { body: {}, headers: event('check_suite') },
      { body: {}, headers: event('milestone') },
      { body: { action: 'created' }, headers: event('team') },
    ];
    for (const q of quiet) {
      const r = await expectNothingPosted(realm, 'github', q);
      expect(r.body).toEqual({ result: 'success', msg: '' });
    }
  });

  it('answers unsupported events with success and a code, posting nothing', async () => {
    const r = await expectNothingPosted(realm, 'github', { body: gh.workflowRun, headers: event('workflow_run') });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      result: 'success',
      msg: "The 'workflow_run:completed' event isn't currently supported by the GitHub webhook; ignoring",
      code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      webhook_name: 'GitHub',
      event_type: 'workflow_run:completed',
    });
  });

  it('only_events and exclude_events filter on Zulip event names', async () => {
    const only = { only_events: JSON.stringify(['issue*']) };
    await expectPosted(realm, 'github', { body: gh.issueComment, headers: event('issue_comment'), query: only });
    expect((await expectNothingPosted(realm, 'github', { body: gh.push1Commit, headers: event('push'), query: only })).body.result).toBe('success');
    const exclude = { exclude_events: JSON.stringify(['push_commits']) };
    expect((await expectNothingPosted(realm, 'github', { body: gh.push1Commit, headers: event('push'), query: exclude })).status).toBe(200);
    await expectPosted(realm, 'github', { body: gh.release, headers: event('release'), query: exclude });
  });

  it('rejects a payload without its event header or of the wrong shape', async () => {
    const r = await expectNothingPosted(realm, 'github', { body: gh.issues });
    expectError(r, 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-GitHub-Event'");
    expect(r.body.header).toBe('X-GitHub-Event');
    // The bot's owner hears about it from Notification Bot.
    const [notice] = await latest(realm.owner, 1, DMS);
    expect(notice!.content).toBe(
      `Hi there!  Your bot Hook Bot just sent an HTTP request to /api/v1/external/github that\nis missing the HTTP X-GitHub-Event header.  Because this header is how\nGitHub indicates the event type, this usually indicates a configuration\nissue, where you either entered the URL for a different integration, or are running\nan older version of the third-party service that doesn't provide that header.\nContact your server administrator if you need help debugging!`,
    );
    const bad = await expectNothingPosted(realm, 'github', { body: { ...gh.issues, issue: 7 }, headers: event('issues') });
    expectError(bad, 400, 'BAD_REQUEST', "payload['issue'] is not a dict");
    const missing = await expectNothingPosted(realm, 'github', { body: { action: 'opened' }, headers: event('issues') });
    expectError(missing, 400, 'BAD_REQUEST', "payload['issue'] is missing");
  });

  it('checks X-Hub-Signature-256 when the URL carries a webhook secret', async () => {
    const body = JSON.stringify(gh.ping);
    const sign = (secret: string) => 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
    const query = { webhook_secret: 's3cret' };
    const m = await expectPosted(realm, 'github', { body, headers: { ...event('ping'), 'X-Hub-Signature-256': sign('s3cret') }, query });
    expect(m.content).toBe('GitHub webhook has been successfully configured by TomaszKolek.');
    for (const headers of [{ ...event('ping'), 'X-Hub-Signature-256': sign('other') }, event('ping')]) {
      const r = await expectNothingPosted(realm, 'github', { body, headers, query });
      expectError(r, 400, 'BAD_REQUEST', 'Webhook signature verification failed.');
    }
    // A body changed after signing fails too.
    const r = await expectNothingPosted(realm, 'github', { body: body.replace('TomaszKolek', 'Mallory'), headers: { ...event('ping'), 'X-Hub-Signature-256': sign('s3cret') }, query });
    expectError(r, 400, 'BAD_REQUEST', 'Webhook signature verification failed.');
  });

  it('reaches the same channel through its id', async () => {
    const m = await expectPosted(realm, 'github', { body: gh.ping, headers: event('ping'), query: { stream: String(realm.channelId), topic: 'by id' } });
    expect(m.topic).toBe('by id');
  });
});
