import type { RedirectRecord } from '@shared/links/redirect-record';
import { ATTRIBUTION_TTL_MS, attributionRepository } from './attribution-repository';
import { toClientLinkPayload } from './client-link';
import { deviceFingerprint } from './fingerprint';

/** The ids of one attributable tap: on the click event and on its attribution record alike. */
export interface TapIds {
  clickId: string;
  attributionId: string;
  sessionId: string;
}

export interface EdgeTap {
  record: RedirectRecord;
  /** The link's own domain (never the `open.` alternate host) and key. */
  domain: string;
  key: string;
  ids: TapIds;
  ip: string | null;
  /** The browser's platform (ios, android, desktop, other). */
  platform: string;
  at: Date;
}

/**
 * A human tap on a deep link on the edge (redirect, launch view, password unlock): the same
 * attribution record `/v1/client/attribution/click` writes, kept 7 days, so that the app's
 * first open matches it by click id (launch view links, Play install referrer, pasteboard
 * hand-off) or by fingerprint (viewer network + platform, 2 hours). An aborted `signal` (the
 * edge's record budget) cancels the write.
 */
export const recordEdgeAttribution = async (tap: EdgeTap, signal?: AbortSignal): Promise<void> => {
  const { record, domain, key, ids, at } = tap;
  const fingerprint = await deviceFingerprint({ ip: tap.ip, platform: tap.platform });
  await attributionRepository.save(
    {
      ...ids,
      workspaceId: record.workspaceId,
      linkId: record.linkId,
      installId: null,
      clickedAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + ATTRIBUTION_TTL_MS).toISOString(),
      fingerprint,
      link: toClientLinkPayload({ ...record, domain, key }),
    },
    { abortSignal: signal },
  );
};
