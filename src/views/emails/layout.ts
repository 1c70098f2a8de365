// The frame every email shares: a plain-text and an HTML part, each ending with the realm's
// name and URL, and the From address.
import type { Config } from '../../config.js';
import type { RealmRecord } from '../../model/types.js';
import { realmUrl } from '../../http/urls.js';

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** NOREPLY_EMAIL, else noreply@ the external host (without its port). */
export function noreplyAddress(config: Config): string {
  return config.NOREPLY_EMAIL ?? `noreply@${config.externalHost.replace(/:\d+$/, '')}`;
}

export interface EmailBody {
  subject: string;
  /** Paragraphs of plain text (links written out). */
  text: string[];
  /** The same content as HTML fragments (already escaped). */
  html: string[];
}

/** Both parts with the realm's signature. */
export function frame(config: Config, realm: Pick<RealmRecord, 'stringId' | 'name'>, body: EmailBody): { subject: string; text: string; html: string } {
  const url = realmUrl(config, realm);
  const text = [...body.text, '--', `${realm.name}: ${url}`].join('\n\n') + '\n';
  const html =
    '<!DOCTYPE html><html><body>' +
    body.html.map((h) => `<div style="margin-bottom:1em">${h}</div>`).join('') +
    `<hr><p style="color:#666">${escapeHtml(realm.name)}: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>` +
    '</body></html>';
  return { subject: body.subject, text, html };
}

export const link = (url: string, label = url) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`;
