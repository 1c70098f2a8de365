// Slack-compatible incoming webhooks: tools that post to a Slack incoming webhook URL can post
// here. The payload is a JSON body or a form field `payload`; blocks and attachments become
// Markdown, Slack's mrkdwn (`*bold*`, `_italic_`, `<url|text>`) becomes Zulip's, as in Zulip's
// slack_incoming integration.
import type { Integration, WebhookRequest, WebhookResult } from './types.js';
import { ignored, post } from './types.js';
import { parseJsonBody, type Wild } from './wild.js';
import { badPayload } from './errors.js';
import { missingArgument } from '../model/errors.js';

/** Zulip's check_url: an absolute http(s) or ftp URL. */
function url(w: Wild): string {
  const s = w.str();
  try {
    const u = new URL(s);
    if (['http:', 'https:', 'ftp:', 'ftps:'].includes(u.protocol) && u.hostname) return s;
  } catch {
    // not a URL
  }
  throw badPayload(`${w.path} is not a URL`);
}

/** A text object of Block Kit: `{type: plain_text | mrkdwn, text}`. */
function textBlock(w: Wild, plainOnly = false): string {
  w.at('type').oneOf(plainOnly ? ['plain_text'] : ['plain_text', 'mrkdwn']);
  return w.at('text').str();
}

const joinPieces = (pieces: string[]) =>
  pieces
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join('\n\n');

function blockElement(e: Wild): string {
  // Interactive elements are not shown; images are.
  if (e.at('type').str() !== 'image') return '';
  return `[${e.at('alt_text').str()}](${url(e.at('image_url'))})`;
}

function renderBlock(block: Wild): string {
  const type = block.at('type').oneOf(['actions', 'context', 'divider', 'header', 'image', 'input', 'section']);
  if (type === 'context' && block.get('elements').truthy) {
    return joinPieces(
      block
        .at('elements')
        .list()
        .map((e) => (e.at('type').oneOf(['image', 'plain_text', 'mrkdwn']) === 'image' ? blockElement(e) : textBlock(e))),
    );
  }
  if (type === 'divider') return '----';
  if (type === 'header') return '## ' + textBlock(block.at('text'), true);
  if (type === 'image') {
    const image = url(block.at('image_url'));
    let alt = block.at('alt_text').str();
    if (block.has('title')) alt = textBlock(block.at('title'), true);
    return `[${alt}](${image})`;
  }
  if (type === 'section') {
    const pieces: string[] = [];
    if (block.has('text')) pieces.push(textBlock(block.at('text')));
    if (block.has('accessory')) pieces.push(blockElement(block.at('accessory')));
    if (block.has('fields')) {
      const fields = block.at('fields').list().map((f) => textBlock(f));
      if (fields.length === 1) {
        pieces.push(fields[0]!);
      } else {
        // Two columns, like Slack; a table cell cannot hold a newline or a pipe.
        const cells = fields.map((f) => f.replaceAll('\n', ' ').replaceAll('|', ' '));
        let table = '| | |\n|-|-|\n';
        for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
        pieces.push(table);
      }
    }
    return joinPieces(pieces);
  }
  return '';
}

function renderAttachment(a: Wild): string {
  const pieces: string[] = [];
  if (a.get('title').truthy) {
    const title = a.at('title').str();
    pieces.push(a.get('title_link').truthy ? `## [${title}](${url(a.at('title_link'))})` : `## ${title}`);
  }
  if (a.get('pretext').truthy) pieces.push(a.at('pretext').str());
  if (a.get('text').truthy) pieces.push(a.at('text').str());
  if (a.has('fields')) {
    const fields: string[] = [];
    for (const f of a.at('fields').list()) {
      if (f.has('title') && f.has('value') && f.at('title').truthy && f.at('value').truthy) fields.push(`*${f.at('title').str()}*: ${f.at('value').str()}`);
      else if (f.get('title').truthy) fields.push(`*${f.at('title').str()}*`);
      else if (f.get('value').truthy) fields.push(f.at('value').str());
    }
    pieces.push(fields.join('\n'));
  }
  if (a.get('blocks').truthy) pieces.push(...a.at('blocks').list().map(renderBlock));
  if (a.get('image_url').truthy) pieces.push(`[](${url(a.at('image_url'))})`);
  if (a.get('footer').truthy) pieces.push(a.at('footer').str());
  if (a.get('ts').truthy) pieces.push(`<time:${a.at('ts').int()}>`);
  return joinPieces(pieces);
}

const replaceLinks = (text: string) => text.replace(/<(\w+?:\/\/.*?)\|(.*?)>/g, '[$2]($1)');

/** Slack's `*bold*` is Zulip's `**bold**`; Slack's `_italic_` is Zulip's `*italic*`. */
function replaceFormatting(text: string): string {
  const NW = '[^\\p{L}\\p{N}_]';
  const bold = new RegExp(`(${NW}|^)\\*(?!\\s+)([^*\\n]+)(?<!\\s)\\*((?=${NW})|$)`, 'gu');
  const italic = new RegExp(`(${NW}|^)_(?!\\s+)([^_\\n]+)(?<!\\s)_((?=${NW})|$)`, 'gu');
  return text.replace(bold, '$1**$2**$3').replace(italic, '$1*$2*$3');
}

function payloadText(req: WebhookRequest): string {
  // Slack takes the payload as a JSON body or as a form field `payload`.
  if (req.contentType === 'application/json') return req.body ?? '';
  const field = req.params.payload;
  if (field === undefined) throw missingArgument('payload');
  return field;
}

function handle(req: WebhookRequest): WebhookResult {
  const p = parseJsonBody(payloadText(req));
  let topic = req.params.topic;
  if (topic === undefined && p.has('channel')) topic = p.at('channel').str().replace(/^[@#]/, '');
  topic ??= '(no topic)';
  const pieces: string[] = [];
  if (p.get('blocks').truthy) pieces.push(...p.at('blocks').list().map(renderBlock));
  if (p.get('attachments').truthy) pieces.push(...p.at('attachments').list().map(renderAttachment));
  let body = joinPieces(pieces);
  if (body === '' && p.get('text').truthy) {
    if (p.get('icon_emoji').truthy) body = p.at('icon_emoji').str() + ' ';
    body = (body + p.at('text').str()).trim();
  }
  if (body === '') return ignored();
  return post(null, { topic, content: replaceFormatting(replaceLinks(body).trim()) });
}

export const slackIncoming: Integration = { name: 'slack_incoming', displayName: 'SlackIncoming', handle };
