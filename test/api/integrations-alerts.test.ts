// Sentry, Grafana, Prometheus Alertmanager, Jira and Slack-compatible incoming webhooks:
// Zulip's topics and messages for their payloads.
import { beforeAll, describe, expect, it } from 'vitest';
import { newUser } from '../helpers/client.js';
import * as sentry from '../fixtures/webhooks/sentry.js';
import * as misc from '../fixtures/webhooks/misc.js';
import { createChannel, expectError, ok } from './channels-helpers.js';
import { expectNothingPosted, expectPosted, hookRealm, latest, postHook, type HookRealm } from './integrations-support.js';

let realm: HookRealm;

beforeAll(async () => {
  realm = await hookRealm('alerts');
});

describe('Sentry', () => {
  it('exceptions with their traceback', async () => {
    const m = await expectPosted(realm, 'sentry', { body: sentry.eventForExceptionPython });
    expect(m.topic).toBe('Exception: Custom exception!');
    expect(m.content).toBe(`**New exception:** [Exception: Custom exception!](https://sentry.io/organizations/hypro999-personal-organization/issues/1635244907/events/599349254a1447a99774b5310711c1a8/)
\`\`\`quote
**level:** error
**timestamp:** 2020-04-28 13:56:05
**filename:** trigger-exception.py
\`\`\`

Traceback:
\`\`\`python3


     if __name__ == "__main__":
         sentry_sdk.init(dsn=SECRET_DSN)
         try:
--->         raise Exception("Custom exception!")
         except Exception as e:
             sentry_sdk.capture_exception(e)

\`\`\``);
    expect(m.client).toBe('ZulipSentryWebhook');
  });

  it('message events, issue changes, the legacy plugin', async () => {
    let m = await expectPosted(realm, 'sentry', { body: sentry.eventForMessagePython });
    expect(m.topic).toBe('A simple message-based issue.');
    expect(m.content).toBe(
      '**New message event:** [A simple message-based issue.](https://sentry.io/organizations/hypro999-personal-organization/issues/1635261062/events/8da63b42375e4d3b803c377fefb062f8/)\n```quote\n**level:** info\n**timestamp:** 2020-04-28 14:05:04\n```',
    );
    // The webhooks plugin sends the event without `data`: same message.
    const plugin = await expectPosted(realm, 'sentry', { body: sentry.pluginEventForMessage });
    expect([plugin.topic, plugin.content]).toEqual([m.topic, m.content]);
    m = await expectPosted(realm, 'sentry', { body: sentry.issueResolved });
    expect(m.topic).toBe('Exception: program has entered an invalid state.');
    expect(m.content).toBe('Issue **Exception: program has entered an invalid state.** was marked as resolved by **Hemanth V. Alluri**.');
    m = await expectPosted(realm, 'sentry', { body: sentry.deprecatedExceptionMessage });
    expect(m.topic).toBe('zulip');
    expect(m.content).toBe('New [issue](https://sentry.io/zulip/zulip/issues/156699934/) (level: ERROR):\n\n``` quote\nThis is an example python exception\n```');
  });

  it("refuses the Raven SDK's events as Zulip does", async () => {
    const r = await expectNothingPosted(realm, 'sentry', { body: sentry.ravenSdkPythonEvent });
    expect(r.body).toMatchObject({ result: 'success', msg: "The 'Raven SDK' event isn't currently supported by the Sentry webhook; ignoring" });
  });
});

describe('Grafana', () => {
  it('legacy alerts, even sent with a form content type', async () => {
    const m = await expectPosted(realm, 'grafana', { body: misc.grafanaAlert, contentType: 'application/x-www-form-urlencoded' });
    expect(m.topic).toBe('[Alerting] Test notification');
    expect(m.content).toBe(`:alert: **ALERTING**

[Test rule](http://localhost:3000/)

Someone is testing the alert notification within grafana.

**High value:** 100
**Higher Value:** 200

[Click to view visualization](https://grafana.com/assets/img/blog/mixed_styles.png)`);
  });

  it("unified alerting's alert lists", async () => {
    const m = await expectPosted(realm, 'grafana', { body: misc.grafanaAlertNewMultiple });
    expect(m.topic).toBe('[FIRING:2]');
    expect(m.content).toBe(`:alert: **FIRING**

Webhook test message.

---
**Alert 1**: High memory usage.

This alert was fired at <time:2021-10-12T09:51:03.157076+02:00>.
Labels:
- alertname: High memory usage
- team: blue
- zone: us-1

Annotations:
- description: The system has high memory usage
- runbook_url: https://myrunbook.com/runbook/1234
- summary: This alert was triggered for zone us-1


---
**Alert 2**: High CPU usage.

This alert was fired at <time:2021-10-12T09:56:03.157076+02:00>.
Labels:
- alertname: High CPU usage
- team: blue
- zone: eu-1

Annotations:
- description: The system has high CPU usage
- runbook_url: https://myrunbook.com/runbook/1234
- summary: This alert was triggered for zone eu-1`);
  });

  it('filters on the alert state', async () => {
    const r = await expectNothingPosted(realm, 'grafana', { body: misc.grafanaAlert, query: { exclude_events: JSON.stringify(['alerting']) } });
    expect(r.body).toEqual({ result: 'success', msg: '' });
    const bad = await expectNothingPosted(realm, 'grafana', { body: { ...misc.grafanaAlert, state: 'exploded' } });
    expectError(bad, 400, 'BAD_REQUEST', "Invalid payload['state']");
  });
});

const GRAPH =
  'http://cobalt:9090/graph?g0.expr=avg+by%28host%29+%28sensors_temp_input%7Bfeature%3D~%22core_%5B0-9%5D%2B%22%7D%29+%3E+15&g0.tab=0';

describe('Alertmanager', () => {
  const query = { name: 'topic', desc: 'description' };

  it('groups alerts by topic and status', async () => {
    let m = await expectPosted(realm, 'alertmanager', { body: misc.alertmanagerAlert, query });
    expect(m.topic).toBe('andromeda');
    expect(m.content).toBe(
      `:alert: **FIRING**\n* CPU core temperature is 34.75C ([source](${GRAPH}))\n* CPU core temperature is 17.625C ([source](${GRAPH}))`,
    );
    m = await expectPosted(realm, 'alertmanager', { body: misc.alertmanagerSingleResolved, query });
    expect(m.content).toBe(`:squared_ok: **Resolved** CPU core temperature is 34.75C ([source](${GRAPH}))`);
    m = await expectPosted(realm, 'alertmanager', { body: misc.alertmanagerNoUrl, query });
    expect(m.content).toBe(':alert: **FIRING** CPU core temperature is 34.75C');
  });

  it('defaults: the instance label names the topic, alertname describes', async () => {
    const m = await expectPosted(realm, 'alertmanager', { body: misc.alertmanagerSingleResolved });
    expect(m.topic).toBe('(unknown)');
    expect(m.content).toBe(`:squared_ok: **Resolved** High CPU Temperature ([source](${GRAPH}))`);
  });

  it('posts one message per topic and status', async () => {
    const payload = {
      ...misc.alertmanagerAlert,
      alerts: [misc.alertmanagerAlert.alerts[0], { ...misc.alertmanagerSingleResolved.alerts[0], annotations: { description: 'Cooled down', topic: 'cassiopeia' } }],
    };
    const r = await postHook(realm, 'alertmanager', { body: payload, query: { ...query, stream: realm.channel } });
    expect(r.body).toEqual({ result: 'success', msg: '' });
    const [a, b] = await latest(realm.owner, 2);
    expect([a!.topic, a!.content]).toEqual(['andromeda', `:alert: **FIRING** CPU core temperature is 34.75C ([source](${GRAPH}))`]);
    expect([b!.topic, b!.content]).toEqual(['cassiopeia', `:squared_ok: **Resolved** Cooled down ([source](${GRAPH}))`]);
  });
});

describe('Jira', () => {
  const CREATED = 'Leo Franchi created [BUG-15: New bug with hook](http://lfranchi.com:8080/browse/BUG-15):\n\n* **Priority**: Major\n* **Assignee**: no one';

  it('issues created; the channel and topic are unescaped once more (Jira escapes them twice)', async () => {
    let m = await expectPosted(realm, 'jira', { body: misc.jiraCreated });
    expect(m.topic).toBe('BUG-15: New bug with hook');
    expect(m.content).toBe(CREATED);
    const id = await createChannel(realm.owner, 'jira alerts');
    const r = await postHook(realm, 'jira', { body: misc.jiraCreated, query: { stream: 'jira%20alerts', topic: 'alerts%20test' } });
    expect(r.body).toEqual({ result: 'success', msg: '' });
    [m] = await latest(realm.owner, 1, [{ operator: 'channel', operand: id }]);
    expect([m!.topic, m!.content]).toEqual(['alerts test', CREATED]);
  });

  it('comments name the assignee by their name in the realm', async () => {
    const othello = await newUser(realm.subdomain, 'Othello, the Moor of Venice');
    const email = ok(await othello.get('/users/me')).delivery_email as string;
    let m = await expectPosted(realm, 'jira', { body: misc.jiraCommented(email) });
    expect(m.topic).toBe('BUG-15: New bug with hook');
    expect(m.content).toBe(
      'Leo Franchi commented on [BUG-15: New bug with hook](http://lfranchi.com:8080/browse/BUG-15) (assigned to **Othello, the Moor of Venice**):\n\n``` quote\nAdding a comment. Oh, what a comment it is!\n```',
    );
    m = await expectPosted(realm, 'jira', { body: misc.jiraCommented('kolaszek@go2.pl') });
    expect(m.content).toContain('(assigned to **kolaszek@go2.pl**):');
    m = await expectPosted(realm, 'jira', { body: misc.jiraCommentCreated });
    expect(m.topic).toBe('SP-1: Add support for newer format Jira issue comment events');
    expect(m.content).toBe(
      'Hemanth V. Alluri commented on issue: *"Add support for newer format Jira issue comment events"*\n``` quote\nSounds like it’s pretty important. I’ll get this fixed ASAP!\n```',
    );
  });

  it('ignored events and payloads that are not from Jira', async () => {
    expect((await expectNothingPosted(realm, 'jira', { body: { webhookEvent: 'sprint_started' } })).body).toEqual({ result: 'success', msg: '' });
    const r = await expectNothingPosted(realm, 'jira', { body: { timestamp: 1, user: { displayName: 'x' } } });
    expectError(r, 400, 'ANOMALOUS_WEBHOOK_PAYLOAD', 'Unable to parse request: Did Jira generate this event?');
    expect(r.body.webhook_name).toBe('Jira');
    const u = await expectNothingPosted(realm, 'jira', { body: { webhookEvent: 'board_created' } });
    expect(u.body).toMatchObject({ result: 'success', code: 'UNSUPPORTED_WEBHOOK_EVENT_TYPE', event_type: 'board_created' });
  });
});

describe('Slack-compatible incoming webhooks', () => {
  it('text, with Slack formatting turned into Zulip’s', async () => {
    const cases: Array<[string, string]> = [
      ['Hello, world.', 'Hello, world.'],
      ['some *foo* word', 'some **foo** word'],
      ['*foo* *bar*', '**foo** **bar**'],
      ['*foo*a*bar*', '*foo*a*bar*'],
      ['some _foo_ word', 'some *foo* word'],
    ];
    for (const [text, expected] of cases) {
      const m = await expectPosted(realm, 'slack_incoming', { body: { text } });
      expect(m.content).toBe(expected);
      // Zulip stores Slack's "(no topic)" as the empty topic.
      expect(m.topic).toBe('');
    }
  });

  it('a form-encoded payload names the topic by its channel', async () => {
    await createChannel(realm.owner, 'slackish');
    const m = await expectPosted(realm, 'slack_incoming', { body: misc.slackUrlencodedText, contentType: 'application/x-www-form-urlencoded' });
    expect(m.topic).toBe('devops');
    expect(m.content).toBe(':zap: chris has started deploying project tag v0.0.2rc10 to staging');
  });

  it('blocks and attachments', async () => {
    let m = await expectPosted(realm, 'slack_incoming', { body: misc.slackBlocks });
    expect(m.content).toBe(`Danny Torrence left the following review for your property:

[Overlook Hotel](https://example.com) \n :star: \n Doors had too many axe holes, guest in room 237 was far too rowdy, whole place felt stuck in the 1920s.

[Haunted hotel image](https://is5-ssl.mzstatic.com/image/thumb/Purple3/v4/d3/72/5c/d3725c8f-c642-5d69-1904-aa36e4297885/source/256x256bb.jpg)

**Average Rating**
1.0`);
    m = await expectPosted(realm, 'slack_incoming', { body: misc.slackAttachmentFields });
    expect(m.content).toBe(`Build bla bla succeeded

**Requested by**: Some user
**Duration**: 00:02:03
**Build pipeline**: ConsumerAddressModule
**Title with null value**
**Title without value**
Value with null title
Value without title`);
  });

  it('nothing to say, or no payload at all', async () => {
    expect((await expectNothingPosted(realm, 'slack_incoming', { body: '{\n    "text": null\n}\n' })).body).toEqual({ result: 'success', msg: '' });
    const r = await expectNothingPosted(realm, 'slack_incoming', { body: '', contentType: 'application/x-www-form-urlencoded' });
    expectError(r, 400, 'REQUEST_VARIABLE_MISSING', "Missing 'payload' argument");
  });
});
