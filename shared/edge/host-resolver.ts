import { LRUCache } from 'lru-cache';
import { ALTERNATE_LABEL } from '@shared/links/link-domain';
import { domainRepository } from '@shared/tenancy/domain-repository';
import type { HostRecord } from '@shared/tenancy/tenancy-types';

/**
 * How long a host lookup (hit or miss) is reused by one Lambda instance. Domains change rarely
 * and only through the admin CLI; a change reaches every instance within this time.
 */
export const HOST_CACHE_TTL_MS = 60_000;
const HOST_CACHE_MAX = 1_000;

export { ALTERNATE_LABEL };

export interface ResolvedHost extends HostRecord {
  /** True when the request came in on `open.<app domain>`. */
  alternate: boolean;
}

/** Hits and misses (`value: null`), each for HOST_CACHE_TTL_MS, at most HOST_CACHE_MAX hostnames (lru-cache). */
const cache = new LRUCache<string, { value: ResolvedHost | null }>({ max: HOST_CACHE_MAX, ttl: HOST_CACHE_TTL_MS });

const lookup = async (hostname: string, signal?: AbortSignal): Promise<ResolvedHost | null> => {
  const direct = await domainRepository.findHost(hostname, signal);
  if (direct) return { ...direct, alternate: false };
  if (!hostname.startsWith(ALTERNATE_LABEL)) return null;
  const base = await domainRepository.findHost(hostname.slice(ALTERNATE_LABEL.length), signal);
  return base?.appId ? { ...base, alternate: true } : null;
};

/** The host record of a hostname (null: not a domain of any workspace), cached in memory. */
export const resolveHost = async (hostname: string, signal?: AbortSignal): Promise<ResolvedHost | null> => {
  if (!hostname) return null;
  const hit = cache.get(hostname);
  if (hit) return hit.value;
  const value = await lookup(hostname, signal);
  cache.set(hostname, { value });
  return value;
};

/** For tests: forget every cached host. */
export const clearHostCache = () => {
  cache.clear();
};
