import path from 'node:path';
import { projectRoot } from '@shared/local/paths';
import type { RouteDef } from '@shared/routes/route-types';

/** The AWS services a floor's bare clients call, joined with `+` (e.g. `dynamodb+kinesis+sqs`). */
export type FloorName = string;

/** What a handler calls, from its route rows. */
export interface FloorNeeds {
  events: boolean;
  analytics: boolean;
  /**
   * Reads the origin-verify secret: an edge handler (behind the front door), and a v1 handler
   * (the console's distribution adds the secret; its check reads it on the first such request).
   */
  originSecret: boolean;
}

/**
 * A handler's floor: the bare SDK clients of the AWS services its route calls (the route
 * table's grants): DynamoDB; Kinesis (the event stream) and SQS (the event spool, the durable
 * fallback every event sender is bound to) when it sends events; Secrets Manager (the
 * origin-verify secret) on the edge and the v1 routes; Athena for analytics, and S3 (analytics reads the lake's
 * watermark object to know where compacted and daily data end: shared/analytics/query/analytics-backend.ts).
 */
export const floorFor = (needs: FloorNeeds | Pick<RouteDef['grants'], 'events' | 'analytics'>): FloorName =>
  [
    'dynamodb',
    needs.events ? 'kinesis' : null,
    needs.events ? 'sqs' : null,
    'originSecret' in needs && needs.originSecret ? 'secrets' : null,
    needs.analytics ? 'athena' : null,
    needs.analytics ? 's3' : null,
  ]
    .filter(Boolean)
    .join('+');

export const floorEntry = path.join(projectRoot, 'bench', 'floor-handler.ts');

/** esbuild `define` of one floor's bundle (bench/floor-handler.ts). */
export const floorDefines = (floor: FloorName): Record<string, string> => ({
  __FLOOR_KINESIS__: String(floor.includes('kinesis')),
  __FLOOR_SQS__: String(floor.includes('sqs')),
  __FLOOR_SECRETS__: String(floor.includes('secrets')),
  __FLOOR_ATHENA__: String(floor.includes('athena')),
  __FLOOR_S3__: String(floor.includes('s3')),
});
