import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { required } from '@shared/util/required';
import { service } from '@shared/runtime/services';

/**
 * SSRF policy of webhook URLs. Deployed: `https` only, and the host must resolve to public
 * addresses only (checked at `webhooks add` for IP literals, and on every delivery against the
 * address the connection actually uses). The local stack also allows `http://127.0.0.1` and
 * `http://localhost`, and nothing else that is not public: the local stack (and the admin CLI
 * targeting it) provides `loopbackWebhooks: true` (shared/runtime/services.ts).
 */
const loopbackAllowed = (): boolean => service('loopbackWebhooks', () => false);

export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError';
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

/** An IPv4 address carried inside an IPv6 one (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96). */
const embeddedIpv4 = (ip: string): string | undefined => {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const hi = parseInt(required(hex[1], 'the high group of an embedded IPv4'), 16);
  const lo = parseInt(required(hex[2], 'the low group of an embedded IPv4'), 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
};

/** True for private, loopback, link-local, shared, documentation, multicast and reserved addresses. */
export const isNonPublicAddress = (ip: string): boolean => {
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(ip);
    if (v4) return blocked.check(v4, 'ipv4');
    return blocked.check(ip, 'ipv6');
  }
  return true;
};

const isLoopbackAddress = (ip: string) => ip === '::1' || ip.startsWith('127.') || ip === '::ffff:127.0.0.1';

/** Checks a webhook URL's form (scheme, host, no credentials); returns it parsed. */
export const checkWebhookUrl = (raw: string): URL => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookUrlError('The webhook URL must be an absolute URL');
  }
  if (url.username || url.password) throw new WebhookUrlError('The webhook URL must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const loopback = loopbackAllowed() && LOOPBACK_HOSTS.has(host);
  if (url.protocol === 'http:') {
    if (!loopback) {
      throw new WebhookUrlError(
        loopbackAllowed()
          ? 'Only https URLs, or http://127.0.0.1 and http://localhost in the local stack'
          : 'The webhook URL must use https',
      );
    }
  } else if (url.protocol !== 'https:') throw new WebhookUrlError('The webhook URL must use https');
  if (!loopback) {
    if (host === 'localhost' || host.endsWith('.localhost'))
      throw new WebhookUrlError('The webhook URL must not point at this machine');
    if (isIP(host) && isNonPublicAddress(host))
      throw new WebhookUrlError(`The webhook URL must not point at a private or reserved address (${host})`);
  }
  return url;
};

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the HTTP request: resolves as Node would, then refuses any non-public address,
 * so a name that resolves (or re-resolves) to an internal address is never connected to.
 */
export const publicOnlyLookup = (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, '');
      return;
    }
    const bad = addresses.find(
      (a) =>
        isNonPublicAddress(a.address) &&
        !(loopbackAllowed() && LOOPBACK_HOSTS.has(hostname) && isLoopbackAddress(a.address)),
    );
    if (bad) {
      callback(
        Object.assign(new WebhookUrlError(`${hostname} resolves to a non-public address (${bad.address})`), {
          code: 'EADDRNOTPUBLIC',
        }),
        '',
      );
      return;
    }
    if (options.all) {
      callback(null, addresses);
      return;
    }
    const first = addresses[0];
    if (!first) {
      callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      return;
    }
    callback(null, first.address, first.family);
  });
};

/**
 * At `webhooks add` (deployed): the host must resolve, and only to public addresses. Deliveries
 * check again on every connection, since DNS can change after this.
 */
export const checkWebhookHost = async (url: URL): Promise<void> => {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) || (loopbackAllowed() && LOOPBACK_HOSTS.has(host))) return;
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    publicOnlyLookup(host, { all: true }, (err) => {
      resolve(err);
    });
  });
  if (!error) return;
  if (error instanceof WebhookUrlError)
    throw new WebhookUrlError(`The webhook URL must not point at a private or reserved address: ${error.message}`);
  throw new WebhookUrlError(`The webhook URL's host ${host} does not resolve (${error.code ?? error.message})`);
};
