// Every incoming webhook integration, by the name in its URL.
import type { Integration } from './types.js';
import { alertmanager } from './alertmanager.js';
import { forgejo, gitea } from './gitea.js';
import { github } from './github.js';
import { gitlab } from './gitlab.js';
import { grafana } from './grafana.js';
import { jira } from './jira.js';
import { json } from './json.js';
import { sentry } from './sentry.js';
import { slackIncoming } from './slackIncoming.js';

const ALL: Integration[] = [alertmanager, forgejo, gitea, github, gitlab, grafana, jira, json, sentry, slackIncoming];

const byName = new Map(ALL.map((i) => [i.name, i]));

export function findIntegration(name: string): Integration | undefined {
  return byName.get(name);
}

export const integrationNames = (): string[] => ALL.map((i) => i.name);
