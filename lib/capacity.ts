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
 */
export interface CapacitySettings {
  serviceApi: { rateLimit: number; burstLimit: number };
  clickPathReservedConcurrency?: number;
  analyticsReservedConcurrency?: number;
  accountConcurrency: number;
  apiBurstQuota: number;
  apiRateQuota: number;
}

/** The functions on the click path (reserved capacity when the operator asks for it). */
export const CLICK_PATH_HANDLERS: readonly string[] = ['edge-links', 'client-click'];

/** Every account must keep this much concurrency unreserved (Lambda refuses a reservation that would not). */
export const UNRESERVED_MINIMUM = 100;

const positiveInt = (node: Node, name: string): number | undefined => {
  const raw: unknown = node.tryGetContext(name);
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`Context ${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
};

export const capacityFromContext = (node: Node): CapacitySettings => {
  const apiBurstQuota = positiveInt(node, 'apiBurstQuota') ?? 5_000;
  const apiRateQuota = positiveInt(node, 'apiRateQuota') ?? 10_000;
  const settings: CapacitySettings = {
    serviceApi: { rateLimit: positiveInt(node, 'serviceRateLimit') ?? 1_000, burstLimit: positiveInt(node, 'serviceBurstLimit') ?? 2_000 },
    clickPathReservedConcurrency: positiveInt(node, 'clickPathReservedConcurrency'),
    analyticsReservedConcurrency: positiveInt(node, 'analyticsReservedConcurrency'),
    accountConcurrency: positiveInt(node, 'accountConcurrency') ?? 1_000,
    apiBurstQuota,
    apiRateQuota,
  };
  for (const [name, api] of Object.entries({ service: settings.serviceApi })) {
    if (api.burstLimit > apiBurstQuota) {
      throw new Error(`The ${name} API burst (${api.burstLimit}) is above the account's API Gateway burst quota (${apiBurstQuota}): it would never apply. Raise the quota and set -c apiBurstQuota, or lower it.`);
    }
    if (api.rateLimit > apiRateQuota) {
      throw new Error(`The ${name} API rate (${api.rateLimit}/s) is above the account's API Gateway rate quota (${apiRateQuota}/s). Raise the quota and set -c apiRateQuota, or lower it.`);
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
