import { domainRepository } from '@shared/tenancy/domain-repository';

/**
 * The label of a deep-link app's alternate host: `open.<app domain>` serves the same links so
 * that "Open in app" on the launch view crosses domains (iOS opens universal links only across
 * domains). See docs/edge.md.
 */
export const ALTERNATE_LABEL = 'open.';

/**
 * The domain a link lives on, for a domain read from a short link: `open.<app domain>` names
 * the deep-link app's own domain (the app may be opened through either host and resolves the
 * URL it got). Any other domain, or an `open.` host that is itself a registered domain or not
 * the alternate of a deep-link domain, is returned as it is.
 */
export const canonicalLinkDomain = async (domain: string): Promise<string> => {
  const hostname = domain.toLowerCase();
  if (!hostname.startsWith(ALTERNATE_LABEL)) return hostname;
  if (await domainRepository.findHost(hostname)) return hostname;
  const base = hostname.slice(ALTERNATE_LABEL.length);
  const host = await domainRepository.findHost(base);
  return host?.appId ? base : hostname;
};
