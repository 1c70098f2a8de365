// The server's emoji table for clients (Zulip's emoji_api.json, whose URL the register
// response gives as `server_emoji_data_url`): the names of every Unicode emoji, canonical
// name first. Its path carries a hash of its content, so it is cached for good.
import { createHash } from 'node:crypto';
import { emojiCodeToNames } from '../render/emoji.js';

let made: { body: string; path: string } | null = null;

function make(): { body: string; path: string } {
  const body = JSON.stringify({ code_to_names: emojiCodeToNames() });
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { body, path: `/static/generated/emoji/emoji_api.${hash}.json` };
}

export function emojiDataPath(): string {
  return (made ??= make()).path;
}

export function emojiDataBody(): string {
  return (made ??= make()).body;
}
