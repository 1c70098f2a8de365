// Integrations read untrusted payloads: whatever a tool (or anyone holding the URL) sends, an
// integration either produces messages or refuses with an API error below 500, never crashes.
// Real payloads, each with one field replaced by an arbitrary JSON value or removed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/model/errors.js';
import { findIntegration } from '../../src/integrations/registry.js';
import type { WebhookRequest } from '../../src/integrations/types.js';
import * as gh from '../fixtures/webhooks/github.js';
import * as gl from '../fixtures/webhooks/gitlab.js';
import * as gt from '../fixtures/webhooks/gitea.js';
import * as sentry from '../fixtures/webhooks/sentry.js';
import * as misc from '../fixtures/webhooks/misc.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const cases: Array<{ name: string; headers: Record<string, string>; payload: unknown; params?: Record<string, string> }> = [
  { name: 'github', headers: { 'x-github-event': 'issues' }, payload: gh.issues },
  { name: 'github', headers: { 'x-github-event': 'issue_comment' }, payload: gh.issueComment },
  { name: 'github', headers: { 'x-github-event': 'pull_request' }, payload: gh.pullRequestOpened },
  { name: 'github', headers: { 'x-github-event': 'push' }, payload: gh.pushMultipleCommittersWithOthers },
  { name: 'github', headers: { 'x-github-event': 'check_run' }, payload: gh.checkRun('completed') },
  { name: 'github', headers: { 'x-github-event': 'release' }, payload: gh.release },
  { name: 'gitlab', headers: { 'x-gitlab-event': 'Push Hook' }, payload: gl.pushHook, params: { branches: 'tomek' } },
  { name: 'gitlab', headers: { 'x-gitlab-event': 'Issue Hook' }, payload: gl.issueCreatedWithAssignee },
  { name: 'gitlab', headers: { 'x-gitlab-event': 'Merge Request Hook' }, payload: gl.mergeRequestCreated },
  { name: 'gitlab', headers: { 'x-gitlab-event': 'Note Hook' }, payload: gl.mergeRequestNote },
  { name: 'gitlab', headers: { 'x-gitlab-event': 'Pipeline Hook' }, payload: gl.pipelineSucceeded },
  { name: 'gitea', headers: { 'x-gitea-event': 'push' }, payload: gt.push5Commits },
  { name: 'gitea', headers: { 'x-gitea-event': 'pull_request' }, payload: gt.pullRequestOpened },
  { name: 'forgejo', headers: { 'x-forgejo-event': 'issues' }, payload: gt.issuesOpened },
  { name: 'sentry', headers: {}, payload: sentry.eventForExceptionPython },
  { name: 'sentry', headers: {}, payload: sentry.eventForMessagePython },
  { name: 'sentry', headers: {}, payload: sentry.issueResolved },
  { name: 'sentry', headers: {}, payload: sentry.deprecatedExceptionMessage },
  { name: 'sentry', headers: {}, payload: sentry.pluginEventForMessage },
  { name: 'grafana', headers: {}, payload: misc.grafanaAlert },
  { name: 'grafana', headers: {}, payload: misc.grafanaAlertNewMultiple },
  { name: 'alertmanager', headers: {}, payload: misc.alertmanagerAlert },
  { name: 'jira', headers: {}, payload: misc.jiraCreated },
  { name: 'jira', headers: {}, payload: misc.jiraCommented('othello@zulip.com') },
  { name: 'jira', headers: {}, payload: misc.jiraCommentCreated },
  { name: 'slack_incoming', headers: {}, payload: misc.slackBlocks },
  { name: 'slack_incoming', headers: {}, payload: misc.slackAttachmentFields },
  { name: 'json', headers: {}, payload: misc.grafanaAlert },
];

/** Every path to a value inside a JSON value. */
function paths(v: Json, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...prefix, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...prefix, k]));
  return out;
}

/** A copy with the value at `path` replaced (or removed when `value` is undefined). */
function mutate(v: Json, path: Array<string | number>, value: Json | undefined): Json | undefined {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const copy: Json = Array.isArray(v) ? [...v] : { ...(v as Record<string, Json>) };
  const child = (copy as Record<string | number, Json>)[head!]!;
  const next = mutate(child, rest, value);
  if (next === undefined) {
    if (Array.isArray(copy)) copy.splice(head as number, 1);
    else delete (copy as Record<string, Json>)[head as string];
  } else {
    (copy as Record<string | number, Json>)[head!] = next;
  }
  return copy;
}

const request = (c: (typeof cases)[number], body: string): WebhookRequest => ({
  headers: c.headers,
  raw: Buffer.from(body),
  body,
  contentType: 'application/json',
  params: c.params ?? {},
  directory: { fullNameByEmail: () => undefined, guessFullName: () => undefined },
});

function outcome(c: (typeof cases)[number], body: string): string {
  const integration = findIntegration(c.name)!;
  try {
    const r = integration.handle(request(c, body));
    if (r.kind === 'messages') {
      for (const m of r.messages) {
        expect(typeof m.topic).toBe('string');
        expect(typeof m.content).toBe('string');
      }
    }
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) return err.code;
    throw err;
  }
}

describe('integrations never crash on odd payloads', () => {
  it('handle every fixture as it is', () => {
    for (const c of cases) expect(outcome(c, JSON.stringify(c.payload)), c.name).toBe('ok');
  });

  it('refuse a Sentry event whose timestamp lies beyond what a date can hold', () => {
    const c = cases.find((x) => x.payload === sentry.pluginEventForMessage)!;
    for (const timestamp of [8640000000001, -8640000000001, 1e300]) {
      const changed = mutate(c.payload as Json, ['event', 'timestamp'], timestamp);
      expect(outcome(c, JSON.stringify(changed)), String(timestamp)).toBe('BAD_REQUEST');
    }
  });

  it('find no event, action or platform in what every object inherits', () => {
    const byPayload = (payload: unknown) => cases.find((x) => x.payload === payload)!;
    const jira = byPayload(misc.jiraCreated);
    const githubIssues = byPayload(gh.issues);
    const githubPull = byPayload(gh.pullRequestOpened);
    const gitlab = byPayload(gl.issueCreatedWithAssignee);
    const unsupported = 'UNSUPPORTED_WEBHOOK_EVENT_TYPE';
    for (const name of ['valueOf', 'constructor', 'toString', 'hasOwnProperty', '__proto__']) {
      expect(outcome(jira, JSON.stringify(mutate(jira.payload as Json, ['webhookEvent'], name))), `jira ${name}`).toBe(unsupported);
      expect(outcome({ ...githubIssues, headers: { 'x-github-event': name } }, JSON.stringify(githubIssues.payload)), `github ${name}`).toBe(unsupported);
      expect(outcome(githubPull, JSON.stringify(mutate(githubPull.payload as Json, ['action'], name))), `github action ${name}`).toBe(unsupported);
      expect(outcome({ ...gitlab, headers: { 'x-gitlab-event': name } }, JSON.stringify(gitlab.payload)), `gitlab ${name}`).toBe(unsupported);
    }
    const sentryEvent = byPayload(sentry.eventForExceptionPython);
    const r = findIntegration('sentry')!.handle(request(sentryEvent, JSON.stringify(mutate(sentryEvent.payload as Json, ['data', 'event', 'platform'], 'constructor'))));
    expect(r.kind).toBe('messages');
    if (r.kind === 'messages') for (const m of r.messages) expect(m.content).not.toContain('native code');
  });

  it('refuse or handle a payload with one field changed or removed', () => {
    const arbitraryCase = fc.integer({ min: 0, max: cases.length - 1 }).chain((i) => {
      const payload = cases[i]!.payload as Json;
      const all = paths(payload);
      return fc.tuple(
        fc.constant(i),
        fc.integer({ min: 0, max: all.length - 1 }).map((j) => all[j]!),
        fc.option(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, { nil: undefined }),
      );
    });
    fc.assert(
      fc.property(arbitraryCase, ([i, path, value]) => {
        const c = cases[i]!;
        const changed = mutate(c.payload as Json, path, value);
        outcome(c, changed === undefined ? '' : JSON.stringify(changed));
      }),
      { numRuns: 2000 },
    );
  });
});
