import type * as z from '@shared/schemas/zod-mini';
import type { socialPreviewSchema, trackingSchema } from '@shared/schemas/link-schemas';

import type { RedirectRule, Variant } from './link-rules';

export type LinkType = 'SHORTLINK' | 'DEEPLINK';
export type Tracking = z.infer<typeof trackingSchema>;
export type SocialPreview = z.infer<typeof socialPreviewSchema>;

export interface TagRef {
  id: string;
  name: string;
  color: string;
}

/** A link as stored (pk LINK#id). Counters live on this item; lists never index them. */
export interface LinkRecord {
  id: string;
  workspaceId: string;
  linkType: LinkType;
  domainId: string;
  domain: string;
  key: string;
  url: string;
  title: string;
  desktopOverrideUrl: string | null;
  androidOverrideUrl: string | null;
  iosOverrideUrl: string | null;
  expiresAt: string | null;
  expiredUrl: string | null;
  passwordHash: string | null;
  comments: string | null;
  objects: Record<string, unknown> | null;
  tags: TagRef[];
  tracking: Tracking | null;
  socialPreview: SocialPreview | null;
  /** Geo targeting: upper-case ISO 3166-1 alpha-2 code -> URL. Absent on items written before it existed. */
  geo?: Record<string, string> | null;
  /** Redirect rules, first match wins. Absent on items written before they existed. */
  rules?: RedirectRule[] | null;
  /** A/B test variants. Absent on items written before they existed. */
  variants?: Variant[] | null;
  /** Web conversion tracking: the edge appends a signed click token to web destinations. Absent on items written before it existed. */
  trackConversions?: boolean;
  deepLinkAppId: string | null;
  archived: boolean;
  clicks: number;
  botClicks: number;
  lastClicked: string | null;
  lastBotClickedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

// Callers across the code import it from here, next to the record it renders.
export { shortLinkOf } from './short-link';
