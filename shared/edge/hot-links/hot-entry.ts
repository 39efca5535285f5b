import type { RedirectRecord } from '@shared/links/redirect-record';
import { redirectTo } from '../click-response';
import { chooseDestination, visitorOf } from '../destination';
import { isExpired } from '../edge-outcome';
import { LINK_KEY } from '../link-key';
import { HOT_ENTRY_FORMAT, KVS_KEY_MAX_BYTES, KVS_VALUE_MAX_BYTES, parseHotEntry, type HotEntry } from './edge-answer';

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

const isEmptyList = (list: readonly unknown[] | null | undefined): boolean => !list || list.length === 0;

/**
 * A link the edge may answer: a plain short link whose every click by a browser goes to one
 * destination. Not a deep link (launch view), no password, no platform override, no `geo`, no
 * redirect rules or A/B-test variants (the destination depends on the request), no conversion
 * tracking (its per-click token is signed with the workspace's secret, which a CloudFront
 * Function must not hold); not archived.
 */
export const isEdgeEligible = (record: RedirectRecord): boolean =>
  record.linkType !== 'DEEPLINK' &&
  !record.archived &&
  !record.passwordHash &&
  !record.iosOverrideUrl &&
  !record.androidOverrideUrl &&
  !record.desktopOverrideUrl &&
  (!record.geo || Object.keys(record.geo).length === 0) &&
  isEmptyList(record.rules) &&
  isEmptyList(record.variants) &&
  record.trackConversions !== true;

/** The store key of a link: `host/key`. */
export const hotStoreKey = (host: string, key: string): string => `${host.toLowerCase()}/${key}`;

/** A hot entry ready for the store: its key and its value (the entry as compact JSON). */
export interface HotStoreEntry {
  key: string;
  value: string;
  /**
   * The destination as the origin records it in the click event (`resolvedDestinationUrl`: the
   * URL before it is serialized for the `Location` header); not stored at the edge, recorded
   * with each write (served-history.ts) for the clicks the edge answers.
   */
  destination?: string;
}

/**
 * The store entry of a link on `host` (its domain), or null when the edge must not answer it:
 * not eligible, already expired, a key outside link-key syntax, or an entry over the
 * KeyValueStore's limits (key 512 bytes, value 1 KB). The `Location` is the origin's own: the
 * destination `chooseDestination` gives (the URL with the link's tracking parameters) serialized
 * by the origin's `redirectTo`. `version` is the link's `updatedAt`.
 */
export const hotStoreEntryOf = (
  host: string,
  key: string,
  record: RedirectRecord,
  version: string,
  now: Date,
): HotStoreEntry | null => {
  if (!isEdgeEligible(record) || isExpired(record, now) || !LINK_KEY.test(key)) return null;
  const destination = chooseDestination(record, visitorOf('other', null, now)).url;
  const redirect = redirectTo(destination);
  const location = redirect.headers?.Location;
  if (typeof location !== 'string') return null;
  const entry: HotEntry = {
    f: HOT_ENTRY_FORMAT,
    l: location,
    s: redirect.statusCode ?? 302,
    e: record.expiresAt ? Date.parse(record.expiresAt) : null,
    v: version,
    i: record.linkId,
  };
  const storeKey = hotStoreKey(host, key);
  const value = JSON.stringify(entry);
  if (bytes(storeKey) > KVS_KEY_MAX_BYTES || bytes(value) > KVS_VALUE_MAX_BYTES) return null;
  // The function answers only entries it reads back as well-formed: write no other.
  if (parseHotEntry(value) === null) return null;
  return { key: storeKey, value, destination };
};
