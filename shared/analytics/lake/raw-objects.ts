import { gunzipSync, gzipSync } from 'node:zlib';
export { isRawObjectName, LEGACY_RAW_FILE_EXTENSION } from './lake-layout';

/*
 * Raw objects as stored: gzip-compressed JSON lines (`.json.gz`). Firehose compresses each object
 * it writes (CompressionFormat GZIP), the local sink writes the same bytes, and Athena reads gzip
 * JSON, billing and counting the compressed bytes it reads
 * (https://docs.aws.amazon.com/athena/latest/ug/compression-formats.html): about 8.8x fewer
 * bytes per compaction statement and per raw read on our event lines (`npm run -s bench:lake`).
 * Objects written before the switch (`.json`, uncompressed) stay readable everywhere until
 * compaction has consumed them.
 */

/** Gzip's magic bytes: what a reader trusts rather than the name (an error object's name says nothing). */
export const isGzip = (bytes: Uint8Array): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/** The stored bytes of a raw object holding these lines (gzip, level 6 as Firehose's GZIP). */
export const encodeRawLines = (lines: readonly string[]): Buffer => gzipSync(lines.join('\n') + '\n');

/** The text of a stored object: gunzipped when it is gzip, as is otherwise. */
export const decodeStoredText = (bytes: Uint8Array): string =>
  (isGzip(bytes) ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');

/** The stored bytes of `text` for `key`: gzip for a `.gz` key, else the text itself. */
export const encodeStoredText = (key: string, text: string): Buffer =>
  key.endsWith('.gz') ? gzipSync(text) : Buffer.from(text, 'utf8');
