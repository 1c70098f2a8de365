// Hosts and URLs of realms, and the placeholder API emails derived from them.
import type { Config } from '../config.js';
import type { RealmRecord } from '../model/types.js';

export function realmHost(config: Config, realm: Pick<RealmRecord, 'stringId'>): string {
  return realm.stringId === '' ? config.externalHost : `${realm.stringId}.${config.externalHost}`;
}

export function realmUrl(config: Config, realm: Pick<RealmRecord, 'stringId'>): string {
  return `${config.EXTERNAL_URI_SCHEME}${realmHost(config, realm)}`;
}

/** Domain of placeholder addresses `user{id}@{domain}`: the realm host without its port. */
export function fakeEmailDomain(config: Config, realm: Pick<RealmRecord, 'stringId'>): string {
  return realmHost(config, realm).replace(/:\d+$/, '');
}

/** The realm's subdomain for a Host header: `<sub>.<EXTERNAL_HOST>`, else the root realm. */
export function subdomainFromHost(config: Config, hostHeader: string | undefined): string {
  const host = (hostHeader ?? '').toLowerCase().replace(/:\d+$/, '');
  const root = config.externalHost.replace(/:\d+$/, '');
  if (host.endsWith(`.${root}`)) {
    const sub = host.slice(0, -(root.length + 1));
    return sub === 'www' ? '' : sub;
  }
  return '';
}
