import path from 'node:path';
import { projectRoot } from '@shared/local/paths';
import type { RouteDef } from '@shared/routes/route-types';

/** The AWS services a floor's bare clients call. */
export type FloorName = 'dynamodb' | 'dynamodb+kinesis' | 'dynamodb+athena' | 'dynamodb+kinesis+athena';

/**
 * A handler's floor: the bare SDK clients of the AWS services its route calls (the route
 * table's grants): DynamoDB, plus Kinesis (the event stream) when it sends events, plus Athena for analytics.
 */
export const floorFor = (grants: RouteDef['grants']): FloorName =>
  (['dynamodb', grants.events ? 'kinesis' : null, grants.analytics ? 'athena' : null].filter(Boolean).join('+') as FloorName);

export const floorEntry = path.join(projectRoot, 'bench', 'floor-handler.ts');

/** esbuild `define` of one floor's bundle (bench/floor-handler.ts). */
export const floorDefines = (floor: FloorName): Record<string, string> => ({
  __FLOOR_KINESIS__: String(floor.includes('kinesis')),
  __FLOOR_ATHENA__: String(floor.includes('athena')),
});
