import { timingSafeEqual } from 'node:crypto';
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { header, type ApiEvent } from './api-types';
import { ORIGIN_VERIFY_HEADER } from './origin-verify-header';
import { service } from '@shared/runtime/services';

export { ORIGIN_VERIFY_HEADER };

/** Deployed: the secret's ARN; the edge accepts its AWSCURRENT and AWSPREVIOUS values (rotation). */
export const ORIGIN_VERIFY_SECRET_ARN_ENV = 'ORIGIN_VERIFY_SECRET_ARN';
/** Local stack: the accepted values, comma-separated (the local front door adds the first). */
export const ORIGIN_VERIFY_VALUES_ENV = 'ORIGIN_VERIFY_VALUES';

/** How long fetched secret values are reused when every request matches them. */
export const ORIGIN_SECRET_CACHE_MS = 5 * 60_000;
/**
 * After a rotation CloudFront may send the new value before this instance's cache expires: a
 * request that matches no cached value makes the instance re-read the secret, at most once per
 * this interval (and one read at a time), before it is refused.
 */
export const ORIGIN_SECRET_REFRESH_MIN_MS = 10_000;

/**
 * The process's client (shared/runtime/services.ts; tests provide one for a loopback endpoint). The
 * cache and the read in flight belong to the client that filled them: a new client starts cold.
 */
const secretsClient = (): SecretsManagerClient => service('originSecretClient', () => new SecretsManagerClient({}));

let cached: { values: string[]; readAt: number; arn: string; client: SecretsManagerClient } | undefined;
let reading: { values: Promise<string[]>; client: SecretsManagerClient } | undefined;

const stageValue = async (
  client: SecretsManagerClient,
  arn: string,
  stage: 'AWSCURRENT' | 'AWSPREVIOUS',
): Promise<string | undefined> => {
  try {
    const out = await client.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: stage }));
    return out.SecretString || undefined;
  } catch (error) {
    // No AWSPREVIOUS before the first rotation.
    if (stage === 'AWSPREVIOUS' && error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
};

/** The read in flight with this client, if any. */
const readingWith = (client: SecretsManagerClient): Promise<string[]> | undefined =>
  reading?.client === client ? reading.values : undefined;

/** Reads both stages; concurrent callers share one read. */
const readValues = (client: SecretsManagerClient, arn: string, now: number): Promise<string[]> => {
  const inFlight = readingWith(client);
  if (inFlight) return inFlight;
  const values = Promise.all([stageValue(client, arn, 'AWSCURRENT'), stageValue(client, arn, 'AWSPREVIOUS')])
    .then(([current, previous]) => {
      const read = [current, previous].filter((v): v is string => Boolean(v));
      if (secretsClient() === client) cached = { values: read, readAt: now, arn, client };
      return read;
    })
    .finally(() => {
      if (reading?.values === values) reading = undefined;
    });
  reading = { values, client };
  return values;
};

/**
 * The values a request may carry, or null when this process has no front door (the service API
 * on API Gateway, unit tests): then no CDN header is trusted and nothing is refused.
 */
export const acceptedOriginValues = async (env = process.env, now = Date.now()): Promise<string[] | null> => {
  const local = env[ORIGIN_VERIFY_VALUES_ENV];
  if (local) return local.split(',').filter(Boolean);
  const arn = env[ORIGIN_VERIFY_SECRET_ARN_ENV];
  if (!arn) return null;
  const client = secretsClient();
  if (cached?.client === client && cached.arn === arn && now - cached.readAt < ORIGIN_SECRET_CACHE_MS)
    return cached.values;
  return readValues(client, arn, now);
};

/**
 * For a request that matched none of the cached values: the secret read afresh, unless this
 * instance read it less than ORIGIN_SECRET_REFRESH_MIN_MS ago (then null: refuse as before). So a
 * rotation is accepted on the first request that carries the new value, and a stream of forged
 * values costs at most one read per interval.
 */
export const refreshedOriginValues = async (env = process.env, now = Date.now()): Promise<string[] | null> => {
  const arn = env[ORIGIN_VERIFY_SECRET_ARN_ENV];
  if (env[ORIGIN_VERIFY_VALUES_ENV] || !arn) return null;
  const client = secretsClient();
  const inFlight = readingWith(client);
  if (inFlight) return inFlight;
  if (cached?.client === client && cached.arn === arn && now - cached.readAt < ORIGIN_SECRET_REFRESH_MIN_MS)
    return null;
  return readValues(client, arn, now);
};

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** True when the request carries one of the accepted values (compared in constant time). */
export const carriesOriginSecret = (event: ApiEvent, accepted: readonly string[]): boolean => {
  const sent = header(event, ORIGIN_VERIFY_HEADER);
  return sent !== undefined && accepted.some((value) => same(sent, value));
};
