import { destinationFor } from '@shared/edge/destination';
import { shortLinkOf, type LinkRecord } from '@shared/links/link-record';
import { clientLinkPayloadOf, resolveClientLinkOrThrow, type ClientLinkPayload } from './client-link';
import type { ClientRequestInfo } from './client-request';
import type { ClientLinkReference } from './client-schemas';
import { uriOf } from '@shared/util/http-url';

type ViewerInfo = Pick<ClientRequestInfo, 'client' | 'destinationCountry'>;

/**
 * Where a click from this platform and country goes, as the edge decides it (override, geo[country],
 * url, with tracking). Like the payload's `url`, a password-protected link answers its short link:
 * a publishable key never learns the destination behind a password. Answered as a URI (`uriOf`).
 */
export const clientDestinationOf = (link: LinkRecord, request: ViewerInfo): string =>
  link.passwordHash
    ? shortLinkOf(link.domain, link.key)
    : uriOf(destinationFor(link, request.client.platform, request.destinationCountry));

/** ClientResolveResponse: the link, and where a click from this platform and country would go. */
export const resolveClientLink = async (
  workspaceId: string,
  ref: ClientLinkReference,
  request: ViewerInfo,
): Promise<{ link: ClientLinkPayload; destinationUrl: string }> => {
  const link = await resolveClientLinkOrThrow(workspaceId, ref);
  return { link: clientLinkPayloadOf(link), destinationUrl: clientDestinationOf(link, request) };
};
