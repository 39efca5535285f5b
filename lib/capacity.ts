import type { Node } from 'constructs';

/**
 * Capacity settings of a deployment, from CDK context (`-c key=value` or cdk.json), with
 * defaults that mean something on a new account (docs/operations.md lists the quotas):
 *
 * - API Gateway stage throttle of the service API. An account's HTTP APIs share a regional quota
 *   of 10,000 requests/s with a burst of 5,000; a stage limit above it never applies;
 *   `apiBurstQuota` tells synth about a raised quota. (The edge is behind CloudFront, not API
 *   Gateway: its limits are the front door's WAF rules.)
 * - Reserved concurrency, off by default: a new account may have a concurrency quota as small as
 *   10, and a reservation must leave 100 unreserved, so a default reservation would fail the
 *   first deploy. `clickPathReservedConcurrency` reserves that many instances for each click-path
 *   function (the redirect and the client click); `analyticsReservedConcurrency` caps each
 *   analytics function (reserved concurrency is also its maximum), so slow Athena queries cannot
 *   take the account's pool from the redirect. `accountConcurrency` (default 1,000, the usual
 *   quota) is checked against the sum.
 * - The edge's plan: `edgeClicksPerSecond` (default 2,000: what the default event stream's 2
 *   shards take; docs/edge.md plans a viral link's 10,000) at
 *   `edgeClickDurationMs` (default 20: the edge-links function's duration deployed, a slug read
 *   and the click's recording in the region; take CloudWatch's Duration p99 once deployed)
 *   needs rate x duration concurrent executions of `edge-links` (40 by default). Synth warns
 *   when a reservation caps the function below that, when the unreserved pool left by the
 *   reservations is smaller, when Lambda's requests-per-second limit (10 per unit of
 *   concurrency) is below the rate, or when the event stream's shards (1,000 records/s each)
 *   are. docs/edge.md says what else such a link needs.
 */
export interface CapacitySettings {
  serviceApi: { rateLimit: number; burstLimit: number };
  clickPathReservedConcurrency?: number;
  analyticsReservedConcurrency?: number;
  accountConcurrency: number;
  apiBurstQuota: number;
  apiRateQuota: number;
  edge: { clicksPerSecond: number; clickDurationMs: number };
}

/** A Kinesis shard takes at most 1,000 records per second of writes. */
export const RECORDS_PER_SHARD = 1_000;

/** Lambda serves at most 10 requests per second per unit of a function's concurrency limit. */
export const REQUESTS_PER_SECOND_PER_CONCURRENCY = 10;

/** The functions on the click path (reserved capacity when the operator asks for it). */
export const CLICK_PATH_HANDLERS: readonly string[] = ['edge-links', 'client-click'];

/** Every account must keep this much concurrency unreserved (Lambda refuses a reservation that would not). */
export const UNRESERVED_MINIMUM = 100;

const positiveInt = (node: Node, name: string): number | undefined => {
  const raw: unknown = node.tryGetContext(name);
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0)
    throw new Error(`Context ${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
};

export const capacityFromContext = (node: Node): CapacitySettings => {
  const apiBurstQuota = positiveInt(node, 'apiBurstQuota') ?? 5_000;
  const apiRateQuota = positiveInt(node, 'apiRateQuota') ?? 10_000;
  const settings: CapacitySettings = {
    serviceApi: {
      rateLimit: positiveInt(node, 'serviceRateLimit') ?? 1_000,
      burstLimit: positiveInt(node, 'serviceBurstLimit') ?? 2_000,
    },
    clickPathReservedConcurrency: positiveInt(node, 'clickPathReservedConcurrency'),
    analyticsReservedConcurrency: positiveInt(node, 'analyticsReservedConcurrency'),
    accountConcurrency: positiveInt(node, 'accountConcurrency') ?? 1_000,
    apiBurstQuota,
    apiRateQuota,
    edge: {
      clicksPerSecond: positiveInt(node, 'edgeClicksPerSecond') ?? 2_000,
      clickDurationMs: positiveInt(node, 'edgeClickDurationMs') ?? 20,
    },
  };
  for (const [name, api] of Object.entries({ service: settings.serviceApi })) {
    if (api.burstLimit > apiBurstQuota) {
      throw new Error(
        `The ${name} API burst (${api.burstLimit}) is above the account's API Gateway burst quota (${apiBurstQuota}): it would never apply. Raise the quota and set -c apiBurstQuota, or lower it.`,
      );
    }
    if (api.rateLimit > apiRateQuota) {
      throw new Error(
        `The ${name} API rate (${api.rateLimit}/s) is above the account's API Gateway rate quota (${apiRateQuota}/s). Raise the quota and set -c apiRateQuota, or lower it.`,
      );
    }
  }
  return settings;
};

/** Checks the reservations leave the account's unreserved minimum (`reservedTotal` over all functions). */
export const checkReservations = (settings: CapacitySettings, reservedTotal: number): void => {
  if (reservedTotal > settings.accountConcurrency - UNRESERVED_MINIMUM) {
    throw new Error(
      `Reserved concurrency ${reservedTotal} leaves less than ${UNRESERVED_MINIMUM} of the account's ${settings.accountConcurrency} unreserved: Lambda would refuse it. Lower the reservations or raise the quota (-c accountConcurrency).`,
    );
  }
};

/** Concurrent executions of `edge-links` the planned click rate needs (rate x duration). */
export const edgeConcurrencyNeeded = (settings: CapacitySettings): number =>
  Math.ceil((settings.edge.clicksPerSecond * settings.edge.clickDurationMs) / 1000);

/**
 * What stops the edge short of its planned rate, as synth warnings: the edge function's
 * reservation (also its maximum), the unreserved pool it otherwise shares, and Lambda's
 * requests-per-second limit on that concurrency. Empty when the plan fits.
 */
export const edgeCapacityWarnings = (
  settings: CapacitySettings,
  edgeReservation: number | undefined,
  reservedTotal: number,
  stream: { mode: 'provisioned'; shards: number } | { mode: 'on-demand' },
): string[] => {
  const needed = edgeConcurrencyNeeded(settings);
  const { clicksPerSecond, clickDurationMs } = settings.edge;
  const plan = `${clicksPerSecond} clicks/s at ${clickDurationMs} ms needs ${needed} concurrent executions of edge-links`;
  const available = edgeReservation ?? settings.accountConcurrency - reservedTotal;
  const warnings: string[] = [];
  if (edgeReservation !== undefined && edgeReservation < needed) {
    warnings.push(
      `${plan}, but its reserved concurrency (${edgeReservation}, also its maximum) caps it at ${Math.floor((edgeReservation * 1000) / clickDurationMs)} clicks/s: raise -c clickPathReservedConcurrency.`,
    );
  } else if (edgeReservation === undefined && available < needed) {
    warnings.push(
      `${plan}, but the account's unreserved concurrency is ${available} (${settings.accountConcurrency} less ${reservedTotal} reserved): raise the Lambda concurrent executions quota and -c accountConcurrency, or reserve for the click path.`,
    );
  }
  if (available * REQUESTS_PER_SECOND_PER_CONCURRENCY < clicksPerSecond) {
    warnings.push(
      `${plan}; Lambda serves at most ${REQUESTS_PER_SECOND_PER_CONCURRENCY} requests/s per unit of concurrency, ${available * REQUESTS_PER_SECOND_PER_CONCURRENCY}/s with ${available}: raise the concurrency available to edge-links.`,
    );
  }
  // Every click is one record on the event stream; a provisioned shard takes 1,000 records/s.
  if (stream.mode === 'provisioned' && stream.shards * RECORDS_PER_SHARD < clicksPerSecond) {
    warnings.push(
      `${clicksPerSecond} clicks/s through edge-links are ${clicksPerSecond} records/s on the event stream, but its ${stream.shards} shards take ${stream.shards * RECORDS_PER_SHARD}/s (the rest is throttled, retried, spooled and counted late): -c eventStreamShards=${Math.ceil(clicksPerSecond / RECORDS_PER_SHARD)} or on-demand.`,
    );
  }
  return warnings;
};
