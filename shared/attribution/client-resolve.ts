import { visitorIdFor } from '@shared/clicks/visitor-id';
import { chooseDestination, type Destination } from '@shared/edge/destination';
import { shortLinkOf, type LinkRecord } from '@shared/links/link-record';
import { toRedirectRecord } from '@shared/links/redirect-record';
import { clientLinkPayloadOf, resolveClientLinkOrThrow, type ClientLinkPayload } from './client-link';
import type { ClientRequestInfo } from './client-request';
import type { ClientLinkReference } from './client-schemas';
import { uriOf } from '@shared/util/http-url';

type ViewerInfo = Pick<ClientRequestInfo, 'client' | 'destinationCountry' | 'acceptLanguage' | 'ip' | 'userAgent'>;

/**
 * Where a click from this visitor goes, as the edge decides it (`chooseDestination`: redirect
 * rules, platform override, geo[country], variants, url, with tracking). The request has no
 * short-link query, so `query` rules do not match here; the variant is the one of the visitor
 * id (the client API has no visitor cookie).
 */
export const clientChoiceOf = async (link: LinkRecord, request: ViewerInfo, now = new Date()): Promise<Destination> =>
  chooseDestination(toRedirectRecord(link), {
    platform: request.client.platform,
    country: request.destinationCountry,
    acceptLanguage: request.acceptLanguage,
    query: new URLSearchParams(),
    ip: request.ip,
    now,
    visitorKey: link.variants?.length ? await visitorIdFor(request.ip, request.userAgent, now) : null,
  });

/**
 * The destination a client is answered: like the payload's `url`, a password-protected link
 * answers its short link (a publishable key never learns the destination behind a password).
 * Answered as a URI (`uriOf`).
 */
export const clientDestinationOf = (link: LinkRecord, choice: Destination): string =>
  link.passwordHash ? shortLinkOf(link.domain, link.key) : uriOf(choice.url);

/** ClientResolveResponse: the link, and where a click from this platform and country would go. */
export const resolveClientLink = async (
  workspaceId: string,
  ref: ClientLinkReference,
  request: ViewerInfo,
): Promise<{ link: ClientLinkPayload; destinationUrl: string }> => {
  const link = await resolveClientLinkOrThrow(workspaceId, ref);
  return {
    link: clientLinkPayloadOf(link),
    destinationUrl: clientDestinationOf(link, await clientChoiceOf(link, request)),
  };
};
