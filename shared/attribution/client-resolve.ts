import { destinationFor } from '@shared/edge/destination';
import { clientLinkPayloadOf, resolveClientLinkOrThrow, type ClientLinkPayload } from './client-link';
import type { ClientRequestInfo } from './client-request';
import type { ClientLinkReference } from './client-schemas';

/** ClientResolveResponse: the link, and where a click from this platform and country would go (as on the edge). */
export const resolveClientLink = async (
  workspaceId: string,
  ref: ClientLinkReference,
  request: Pick<ClientRequestInfo, 'client' | 'country'>,
): Promise<{ link: ClientLinkPayload; destinationUrl: string }> => {
  const link = await resolveClientLinkOrThrow(workspaceId, ref);
  return { link: clientLinkPayloadOf(link), destinationUrl: destinationFor(link, request.client.platform, request.country) };
};
