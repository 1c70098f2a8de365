// Markdown to HTML for messages, descriptions and profile fields, with what the content
// mentions. The render pool replaces the plain paragraph rendering below.
import type { RealmActor } from '../realm/actor.js';

export interface RenderedContent {
  html: string;
  mentionedUserIds: number[];
  mentionedGroupIds: number[];
  wildcards: { stream: boolean; topic: boolean };
  isMeMessage: boolean;
  links: string[];
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export async function renderContent(
  _actor: RealmActor,
  content: string,
  _opts: { senderId?: number } = {},
): Promise<RenderedContent> {
  const html = content
    .split(/\n{2,}/)
    .filter((para) => para.trim() !== '')
    .map((para) => `<p>${escapeHtml(para).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
  return {
    html,
    mentionedUserIds: [],
    mentionedGroupIds: [],
    wildcards: { stream: false, topic: false },
    isMeMessage: /^\/me /.test(content),
    links: [],
  };
}
