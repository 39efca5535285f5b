import { S3Client } from '@aws-sdk/client-s3';
import { createS3LakeStore } from '@shared/admin/lake-store';
import { getConfig, type Config } from '@shared/config/config';
import { AnalyticsUnavailableError, type AnalyticsEngine } from './analytics-engine';
import { createAthenaClient } from '../athena-client';
import { createAthenaEngine } from './athena-engine';
import { parseMergedBefore, WATERMARK_KEY } from '../lake/compaction-plan';
import { cachedWatermarkReader } from './raw-read';
import { service } from '@shared/runtime/services';

/**
 * The watermark object in the lake bucket (the official S3 client; read on compacted/ is
 * granted), read at most once a minute: its compaction watermark and its daily-merge boundary.
 */
const s3WatermarkReaders = (region: string, bucket: string) => {
  const lake = createS3LakeStore(new S3Client({ region }), bucket);
  return {
    readWatermark: cachedWatermarkReader(() => lake.getText(WATERMARK_KEY)),
    readMergedBefore: cachedWatermarkReader(() => lake.getText(WATERMARK_KEY), { parse: parseMergedBefore }),
  };
};

/**
 * The deployed engine: Athena when ATHENA_WORKGROUP and ATHENA_DATABASE are set, else 503
 * analytics_unavailable. (DuckDB over the local lake is the local stack's, shared/local/local-services.ts.)
 */
export const engineFromConfig = (
  config: Pick<Config, 'ATHENA_WORKGROUP' | 'ATHENA_DATABASE' | 'LAKE_BUCKET' | 'AWS_REGION'>,
): AnalyticsEngine => {
  if (config.ATHENA_WORKGROUP && config.ATHENA_DATABASE) {
    return createAthenaEngine({
      athena: createAthenaClient({ region: config.AWS_REGION }),
      workgroup: config.ATHENA_WORKGROUP,
      database: config.ATHENA_DATABASE,
      ...(config.LAKE_BUCKET ? s3WatermarkReaders(config.AWS_REGION, config.LAKE_BUCKET) : {}),
    });
  }
  throw new AnalyticsUnavailableError('Analytics are not configured for this deployment');
};

/**
 * One engine per process and configuration (shared/runtime/services.ts): the production one,
 * unless the composition root provided another; built again when the configuration is read again.
 */
export const getAnalyticsEngine = (): AnalyticsEngine =>
  service('analyticsEngine', () => engineFromConfig(getConfig()), { perConfig: true });
