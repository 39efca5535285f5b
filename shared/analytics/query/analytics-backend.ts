import { S3Client } from '@aws-sdk/client-s3';
import { createS3LakeStore } from '@shared/admin/lake-store';
import { getConfig, type Config } from '@shared/config/config';
import { AnalyticsUnavailableError, type AnalyticsEngine } from './analytics-engine';
import { createAthenaClient } from '../athena-client';
import { createAthenaEngine } from './athena-engine';
import { parseMergedBefore, WATERMARK_KEY } from '../lake/compaction-plan';
import { cachedWatermarkReader } from './raw-read';

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

let build: (config: Config) => AnalyticsEngine = engineFromConfig;
let cached: { config: Config; engine: AnalyticsEngine } | undefined;
let override: AnalyticsEngine | undefined;

/** One engine per process and configuration: the production one, unless the composition root provided another. */
export const getAnalyticsEngine = (): AnalyticsEngine => {
  if (override) return override;
  const config = getConfig();
  if (cached?.config !== config) cached = { config, engine: build(config) };
  return cached.engine;
};

/**
 * For a composition root other than a Lambda's (the local stack, the admin CLI pointed at it, the
 * test environment): how this process builds its engine; undefined: the production one again.
 */
export const provideAnalyticsEngine = (factory: ((config: Config) => AnalyticsEngine) | undefined): void => {
  build = factory ?? engineFromConfig;
  cached = undefined;
};

/** For tests: run analytics on another engine (e.g. Athena over an intercepted client). */
export const setAnalyticsEngine = (engine: AnalyticsEngine | undefined) => {
  override = engine;
};
