// Addresses of the incoming email gateway, in Zulip's formats:
// - a channel: `<channel-slug>.<token>[.<option>…]@<EMAIL_GATEWAY_DOMAIN>` (`+` also separates);
//   options: show-sender, include-footer, include-quotes, prefer-html, prefer-text;
// - a reply to a missed-message email: `mm<token>@<EMAIL_GATEWAY_DOMAIN>`.

export const GATEWAY_OPTIONS = ['show-sender', 'include-footer', 'include-quotes', 'prefer-html', 'prefer-text'] as const;
export type GatewayOption = (typeof GATEWAY_OPTIONS)[number];

/** Zulip's slug of a channel name: runs of non-word characters become one hyphen, lower case, no hyphen at the ends. */
export function channelSlug(name: string): string {
  return name.replace(/[^\p{L}\p{N}_]+/gu, '-').toLowerCase().replace(/^-+|-+$/g, '');
}

export function channelEmailAddress(name: string, token: string, domain: string, options: GatewayOption[] = []): string {
  const slug = channelSlug(name);
  return [...(slug ? [slug] : []), token, ...options].join('.') + `@${domain}`;
}

export type GatewayAddress =
  | { kind: 'channel'; token: string; options: Set<GatewayOption> }
  | { kind: 'missed_message'; token: string };

/** What an address of the gateway's domain names, or null when it is not one of ours. */
export function parseGatewayAddress(address: string, domain: string): GatewayAddress | null {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const local = address.slice(0, at).toLowerCase();
  const mm = /^mm([0-9a-f]{32})$/.exec(local);
  if (mm) return { kind: 'missed_message', token: mm[1]! };
  const parts = local.split(/[.+]/);
  const options = new Set<GatewayOption>();
  const rest: string[] = [];
  for (const p of parts) {
    if ((GATEWAY_OPTIONS as readonly string[]).includes(p)) options.add(p as GatewayOption);
    else rest.push(p);
  }
  // [token] or [slug, token]: the slug is only for people, the token says everything.
  const token = rest[rest.length - 1];
  if (rest.length < 1 || rest.length > 2 || !token || !/^[0-9a-f]{32}$/.test(token)) return null;
  return { kind: 'channel', token, options };
}
