// The generic JSON integration: any JSON object, shown as a pretty-printed code block under
// the topic "JSON" (Zulip's text: Python's json.dumps with an indent of 2).
import type { Integration, WebhookRequest, WebhookResult } from './types.js';
import { post } from './types.js';
import { parseJsonBody } from './wild.js';
import { badPayload } from './errors.js';
import { parseOrderedJson, pyJsonDumps } from './python.js';

function handle(req: WebhookRequest): WebhookResult {
  const text = req.body ?? '';
  const payload = parseJsonBody(text);
  if (payload.value === null || typeof payload.value !== 'object' || Array.isArray(payload.value)) throw badPayload('payload is not a dict');
  // Re-read keeping key order and number text, which the message shows as sent.
  const content = `\`\`\`json\n${pyJsonDumps(parseOrderedJson(text))}\n\`\`\``;
  return post(null, { topic: 'JSON', content });
}

export const json: Integration = { name: 'json', displayName: 'JSON', handle };
