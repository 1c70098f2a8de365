// Prometheus Alertmanager: one message per topic and status. The topic is the alert's `name`
// label or annotation (the URL's `name` option names which, default `instance`) and the text
// its `desc` one (default `alertname`), as in Zulip's Alertmanager integration.
import type { Integration, WebhookMessage, WebhookRequest, WebhookResult } from './types.js';
import { post } from './types.js';
import { parseJsonBody } from './wild.js';

function handle(req: WebhookRequest): WebhookResult {
  const p = parseJsonBody(req.body ?? '');
  const nameField = req.params.name ?? 'instance';
  const descField = req.params.desc ?? 'alertname';
  const topics = new Map<string, { firing: string[]; resolved: string[] }>();
  for (const alert of p.at('alerts').list()) {
    const labels = alert.get('labels', {});
    const annotations = alert.get('annotations', {});
    const name = labels.get(nameField, annotations.get(nameField, '(unknown)')).str();
    const desc = labels.get(descField, annotations.get(descField, `<missing field: ${descField}>`)).str();
    // Alerts from some senders carry no generator link; the line is then the text alone.
    const generator = alert.get('generatorURL', '');
    const url = generator.isNull ? '' : generator.str().replaceAll('tab=1', 'tab=0');
    let byStatus = topics.get(name);
    if (!byStatus) topics.set(name, (byStatus = { firing: [], resolved: [] }));
    const status = alert.at('status').oneOf(['firing', 'resolved'] as const);
    byStatus[status].push(url ? `${desc} ([source](${url}))` : desc);
  }
  const messages: WebhookMessage[] = [];
  for (const [topic, byStatus] of topics) {
    for (const status of ['firing', 'resolved'] as const) {
      const lines = byStatus[status];
      if (lines.length === 0) continue;
      const head = status === 'firing' ? ':alert: **FIRING**' : ':squared_ok: **Resolved**';
      const content = lines.length === 1 ? `${head} ${lines[0]}` : `${head}\n${lines.map((m) => `* ${m}`).join('\n')}`;
      messages.push({ topic, content });
    }
  }
  return post(null, ...messages);
}

export const alertmanager: Integration = { name: 'alertmanager', displayName: 'Alertmanager', handle };
