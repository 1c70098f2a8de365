// The GitLab, Gitea and Forgejo integrations: Zulip's topics and messages for their payloads.
import { beforeAll, describe, expect, it } from 'vitest';
import * as gl from '../fixtures/webhooks/gitlab.js';
import * as gt from '../fixtures/webhooks/gitea.js';
import { expectError } from './channels-helpers.js';
import { expectNothingPosted, expectPosted, hookRealm, type HookRealm } from './integrations-support.js';

let realm: HookRealm;

beforeAll(async () => {
  realm = await hookRealm('gitforges');
});

const gitlab = (event: string) => ({ 'X-Gitlab-Event': event });
const GL_PROJECT = '[[my-awesome-project](https://gitlab.com/tomaszkolek0/my-awesome-project)] ';
const GL_PUSH =
  'Tomasz Kolek [pushed](https://gitlab.com/tomaszkolek0/my-awesome-project/-/compare/5fcdd5551fc3085df79bece2c32b1400802ac407...eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9) 2 commits to branch tomek.\n\n* b ([66abd2da288](https://gitlab.com/tomaszkolek0/my-awesome-project/commit/66abd2da28809ffa128ed0447965cf11d7f863a7))\n* c ([eb6ae1e591e](https://gitlab.com/tomaszkolek0/my-awesome-project/commit/eb6ae1e591e0819dc5bf187c6bfe18ec065a80e9))';

describe('GitLab', () => {
  it('pushes, with branch filters and a topic of the URL', async () => {
    let m = await expectPosted(realm, 'gitlab', { body: gl.pushHook, headers: gitlab('Push Hook') });
    expect(m.topic).toBe('my-awesome-project / tomek');
    expect(m.content).toBe(GL_PUSH);
    expect(m.client).toBe('ZulipGitLabWebhook');
    m = await expectPosted(realm, 'gitlab', { body: gl.pushHook, headers: gitlab('Push Hook'), query: { branches: 'master,tomek' } });
    expect(m.content).toBe(GL_PUSH);
    m = await expectPosted(realm, 'gitlab', { body: gl.pushHook, headers: gitlab('Push Hook'), query: { topic: 'Specific topic' } });
    expect(m.topic).toBe('Specific topic');
    expect(m.content).toBe(GL_PROJECT + GL_PUSH);
    const r = await expectNothingPosted(realm, 'gitlab', { body: gl.pushHook, headers: gitlab('Push Hook'), query: { branches: 'master,development' } });
    expect(r.body).toEqual({ result: 'success', msg: '' });
  });

  it('issues', async () => {
    let m = await expectPosted(realm, 'gitlab', { body: gl.issueCreatedWithoutAssignee, headers: gitlab('Issue Hook') });
    expect(m.topic).toBe('my-awesome-project / issue #1 Issue title');
    expect(m.content).toBe(
      'Tomasz Kolek created [issue #1](https://gitlab.com/tomaszkolek0/my-awesome-project/issues/1):\n\n~~~ quote\nIssue description\n~~~',
    );
    m = await expectPosted(realm, 'gitlab', { body: gl.issueCreatedWithAssignee, headers: gitlab('Issue Hook') });
    expect(m.content).toBe(
      'Tomasz Kolek created [issue #1](https://gitlab.com/tomaszkolek0/my-awesome-project/issues/1) (assigned to Tomasz Kolek):\n\n~~~ quote\nIssue description\n~~~',
    );
    m = await expectPosted(realm, 'gitlab', { body: gl.issueCreatedWithoutAssignee, headers: gitlab('Issue Hook'), query: { topic: 'notifications' } });
    expect(m.content).toBe(
      `${GL_PROJECT}Tomasz Kolek created [issue #1 Issue title](https://gitlab.com/tomaszkolek0/my-awesome-project/issues/1):\n\n~~~ quote\nIssue description\n~~~`,
    );
  });

  it('merge requests and their notes', async () => {
    let m = await expectPosted(realm, 'gitlab', { body: gl.mergeRequestCreated, headers: gitlab('Merge Request Hook') });
    expect(m.topic).toBe('my-awesome-project / MR #2 NEW MR');
    expect(m.content).toBe(
      'Tomasz Kolek created [MR #2](https://gitlab.com/tomaszkolek0/my-awesome-project/merge_requests/2) from `tomek` to `master`:\n\n~~~ quote\ndescription of merge request\n~~~',
    );
    m = await expectPosted(realm, 'gitlab', { body: gl.mergeRequestClosed, headers: gitlab('Merge Request Hook'), query: { use_merge_request_title: 'false' } });
    expect(m.topic).toBe('my-awesome-project / MR #2');
    expect(m.content).toBe('Tomasz Kolek closed [MR #2](https://gitlab.com/tomaszkolek0/my-awesome-project/merge_requests/2).');
    m = await expectPosted(realm, 'gitlab', { body: gl.mergeRequestNote, headers: gitlab('Note Hook') });
    expect(m.topic).toBe('testing-zulip-gitlab-integration / MR #1 add new-feature');
    expect(m.content).toBe(
      'Satyam Bansal [commented](https://gitlab.com/sbansal1999/testing-zulip-gitlab-integration/-/merge_requests/1#note_1406328457) on [MR #1](https://gitlab.com/sbansal1999/testing-zulip-gitlab-integration/-/merge_requests/1):\n\n~~~ quote\nI am not sure if this new feature is even required or not.\n~~~',
    );
  });

  it('pipelines', async () => {
    const m = await expectPosted(realm, 'gitlab', { body: gl.pipelineSucceeded, headers: gitlab('Pipeline Hook') });
    expect(m.topic).toBe('my-awesome-project / master');
    expect(m.content).toBe(
      '[Pipeline (4414206)](https://gitlab.com/TomaszKolek/my-awesome-project/-/pipelines/4414206) changed status to success with build(s):\n* [job_name2](https://gitlab.com/TomaszKolek/my-awesome-project/-/jobs/4541113) - success\n* [job_name](https://gitlab.com/TomaszKolek/my-awesome-project/-/jobs/4541112) - success.',
    );
  });

  it('unsupported events, a missing header', async () => {
    const r = await expectNothingPosted(realm, 'gitlab', { body: { object_kind: 'member' }, headers: gitlab('Member Hook') });
    expect(r.body).toMatchObject({ result: 'success', code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', event_type: 'Member Hook', webhook_name: 'GitLab' });
    expectError(await expectNothingPosted(realm, 'gitlab', { body: gl.pushHook }), 400, 'MISSING_HTTP_EVENT_HEADER', "Missing the HTTP event header 'X-GitLab-Event'");
  });
});

const GT_PUSH = `kostekIV [pushed](https://try.gitea.io/kostekIV/test/compare/21138d2ca0ce18f8e037696fdbe1b3f0c211f630...2ec0c971d04723523aa20f2b378f8b419b47d4ec) 5 commits to branch d.

* commit ([2ec0c971d04](https://try.gitea.io/kostekIV/test/commit/2ec0c971d04723523aa20f2b378f8b419b47d4ec))
* commit ([6cb1701c8b0](https://try.gitea.io/kostekIV/test/commit/6cb1701c8b0114ad716f4cd49153076e7109cb85))
* commit ([6773eabc077](https://try.gitea.io/kostekIV/test/commit/6773eabc0778a3e38997c06a13f5f0c48b67e5dc))
* commit ([337402cf675](https://try.gitea.io/kostekIV/test/commit/337402cf675ce7082ddcd23d06a116c85241825a))
* commit ([0a38cad3fac](https://try.gitea.io/kostekIV/test/commit/0a38cad3fac3a13bb78b738d13f15ce9cc3343fa))`;

describe('Gitea and Forgejo', () => {
  it('pushes', async () => {
    const m = await expectPosted(realm, 'gitea', { body: gt.push5Commits, headers: { 'X-Gitea-Event': 'push' } });
    expect(m.topic).toBe('test / d');
    expect(m.content).toBe(GT_PUSH);
    expect(m.client).toBe('ZulipGiteaWebhook');
    const r = await expectNothingPosted(realm, 'gitea', { body: gt.push5Commits, headers: { 'X-Gitea-Event': 'push' }, query: { branches: 'changes,development' } });
    expect(r.body).toEqual({ result: 'success', msg: '' });
  });

  it('pull requests and issues', async () => {
    let m = await expectPosted(realm, 'gitea', { body: gt.pullRequestOpened, headers: { 'X-Gitea-Event': 'pull_request' } });
    expect(m.topic).toBe('test / PR #1905 New pr');
    expect(m.content).toBe('kostekIV opened [PR #4](https://try.gitea.io/kostekIV/test/pulls/4) from `test-branch` to `master`.');
    m = await expectPosted(realm, 'gitea', { body: gt.issuesOpened, headers: { 'X-Gitea-Event': 'issues' } });
    expect(m.topic).toBe('test / issue #3 Test issue');
    expect(m.content).toBe('kostekIV opened [issue #3](https://try.gitea.io/kostekIV/test/issues/3):\n\n~~~ quote\nTest body\n~~~');
  });

  it('Forgejo sends its own header (and Gitea’s)', async () => {
    let m = await expectPosted(realm, 'forgejo', { body: gt.push5Commits, headers: { 'X-Forgejo-Event': 'push' } });
    expect(m.content).toBe(GT_PUSH);
    expect(m.client).toBe('ZulipForgejoWebhook');
    m = await expectPosted(realm, 'forgejo', { body: gt.issuesOpened, headers: { 'X-Gitea-Event': 'issues' } });
    expect(m.topic).toBe('test / issue #3 Test issue');
    expectError(await expectNothingPosted(realm, 'forgejo', { body: gt.issuesOpened }), 400, 'MISSING_HTTP_EVENT_HEADER');
  });

  it('unsupported events', async () => {
    const r = await expectNothingPosted(realm, 'gitea', { body: gt.issuesOpened, headers: { 'X-Gitea-Event': 'wiki' } });
    expect(r.body).toEqual({
      result: 'success',
      msg: "The 'wiki' event isn't currently supported by the Gitea webhook; ignoring",
      code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE',
      webhook_name: 'Gitea',
      event_type: 'wiki',
    });
  });
});
