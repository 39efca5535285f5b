import { recordClick } from '@shared/clicks/record-click';
import { uuid } from '@shared/util/ids';
import { ATTRIBUTION_TTL_MS, attributionRepository } from './attribution-repository';
import { clientLinkPayloadOf, isEligible, resolveClientLinkOrThrow, type ClientLinkPayload } from './client-link';
import type { ClientRequestInfo } from './client-request';
import { clientChoiceOf, clientDestinationOf } from './client-resolve';
import type { ClientClickBody } from './client-schemas';
import { deviceFingerprint } from './fingerprint';

/** ClientClickResponse of the client API. */
export interface ClientClickResponse {
  clickId: string;
  attributionId: string;
  sessionId: string;
  installId: string | null;
  expiresAt: string;
  eligible: boolean;
  deferredDeepLink: ClientLinkPayload | null;
  /** Where this click goes: the edge's destination for this visitor (rules, override, geo, variants, url + tracking); a password-protected link's short link. */
  destinationUrl: string;
}

/**
 * A client-reported click: moves the link's counters and records the `click` event (through
 * `recordClick`, like the edge), and for an eligible click keeps an attribution record for
 * 7 days so that a later first open can be matched to it.
 */
export const recordClientClick = async (
  workspaceId: string,
  body: ClientClickBody,
  request: ClientRequestInfo,
  at = new Date(),
): Promise<ClientClickResponse> => {
  const link = await resolveClientLinkOrThrow(workspaceId, body);
  const ids = {
    clickId: uuid(),
    attributionId: uuid(),
    sessionId: body.sessionId ?? uuid(),
    installId: body.installId ?? null,
  };
  const expiresAt = new Date(at.getTime() + ATTRIBUTION_TTL_MS).toISOString();
  const eligible = isEligible(link, request.client.isBot, at);
  const payload = clientLinkPayloadOf(link);
  const choice = await clientChoiceOf(link, request, at);
  const destination = choice.url;

  await recordClick({
    link: {
      workspaceId,
      linkId: link.id,
      linkType: link.linkType,
      deepLinkAppId: link.deepLinkAppId,
      domain: link.domain,
      key: link.key,
      tracking: link.tracking,
    },
    userAgent: request.userAgent,
    ip: request.ip,
    country: request.country,
    referrer: request.referrer,
    resolvedDestinationUrl: destination,
    responseKind: 'api',
    ids,
    decidedBy: { ruleId: choice.ruleId, variantId: choice.variantId },
    at,
  });
  if (eligible) {
    const fingerprint = await deviceFingerprint({ ip: request.ip, platform: request.client.platform });
    await attributionRepository.save({
      ...ids,
      workspaceId,
      linkId: link.id,
      clickedAt: at.toISOString(),
      expiresAt,
      fingerprint,
      link: payload,
    });
  }
  return {
    ...ids,
    expiresAt,
    eligible,
    deferredDeepLink: eligible ? payload : null,
    destinationUrl: clientDestinationOf(link, choice),
  };
};
