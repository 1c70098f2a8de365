// Grafana: alerts of Grafana's alerting (an `alerts` list) and its legacy alerts (one rule's
// state), worded as Zulip's Grafana integration. The state is the filterable event type.
import type { Integration, WebhookRequest, WebhookResult } from './types.js';
import { post } from './types.js';
import { parseJsonBody, type Wild } from './wild.js';
import { badPayload } from './errors.js';
import { pyFloat } from './python.js';

const status = (icon: string, state: string) => `${icon} **${state}**\n\n`;

function alertingMessage(p: Wild): WebhookResult {
  const state = p.at('status').oneOf(['firing', 'resolved'] as const);
  const alerts = p.at('alerts').list();
  const topic = `[${state.toUpperCase()}:${alerts.length}]`;
  let body = status(state === 'firing' ? ':alert:' : ':checkbox:', state.toUpperCase());
  if (p.at('message').truthy) body += p.at('message').str() + '\n';
  alerts.forEach((alert, index) => {
    body += `\n---\n**Alert ${index + 1}**`;
    const labels = alert.at('labels');
    if (labels.has('alertname') && labels.at('alertname').truthy) body += `: ${labels.at('alertname').str()}.`;
    body += `\n\nThis alert was fired at <time:${alert.at('startsAt').str()}>.\n`;
    const end = alert.at('endsAt').str();
    if (end !== '0001-01-01T00:00:00Z') body += `\nThis alert was resolved at <time:${end}>.\n\n`;
    if (labels.truthy) body += `Labels:\n${labels.entries().map(([k, v]) => `- ${k}: ${v.str()}\n`).join('')}\n`;
    const annotations = alert.at('annotations');
    if (annotations.truthy) body += `Annotations:\n${annotations.entries().map(([k, v]) => `- ${k}: ${v.str()}\n`).join('')}\n`;
  });
  if (p.at('truncatedAlerts').truthy) body += `${p.at('truncatedAlerts').int()} alert(s) truncated.\n`;
  return post(state, { topic, content: body });
}

function matchValue(w: Wild): string {
  const v = w.value;
  if (v === null) return 'None';
  if (typeof v !== 'number') throw badPayload(`${w.path} is not an allowed_type`);
  return Number.isInteger(v) ? String(v) : pyFloat(v);
}

function legacyMessage(p: Wild): WebhookResult {
  const topic = p.at('title').str();
  let matches = '';
  if (p.has('evalMatches') && !p.at('evalMatches').isNull) {
    for (const m of p.at('evalMatches').list()) matches += `**${m.at('metric').str()}:** ${matchValue(m.at('value'))}\n`;
  }
  const message = p.has('message') ? p.at('message').str() + '\n\n' : '';
  const state = p.at('state').oneOf(['no_data', 'paused', 'alerting', 'ok', 'pending', 'unknown'] as const);
  const icon = state === 'alerting' ? ':alert:' : state === 'ok' ? ':squared_ok:' : ':info:';
  let body = `${status(icon, state.toUpperCase())}[${p.at('ruleName').str()}](${p.at('ruleUrl').str()})\n\n${message}${matches}`;
  if (p.has('imageUrl')) body += `\n[Click to view visualization](${p.at('imageUrl').str()})`;
  return post(state, { topic, content: body.trim() });
}

function handle(req: WebhookRequest): WebhookResult {
  const p = parseJsonBody(req.body ?? '');
  return p.has('alerts') ? alertingMessage(p) : legacyMessage(p);
}

export const grafana: Integration = { name: 'grafana', displayName: 'Grafana', handle };
