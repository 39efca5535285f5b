/**
 * The bench's budgets; the report marks each pass or fail and `--check` exits non-zero on a fail.
 * The cold-start budgets are on module init time (CPU time of the import, median of alternated
 * runs; bench/cold-start.ts) as a multiple of the handler's floor (bench/floors.ts: the bare SDK
 * clients of the services it calls). Bundle sizes are reported beside them, without a budget.
 */
export const budgets = {
  /** Every handler's init time as a multiple of its floor's (the redirect and the QR handlers have their own). */
  handlerVsFloor: 1.3,
  /** The QR handlers' init time: they carry the QR encoder (the qrcode library and its PNG encoder). */
  qrHandlerVsFloor: 1.5,
  /** A 100-link bulk create's warm duration, against API Gateway's 30 s integration timeout. */
  bulk100Ms: 3000,
  /** The redirect handler's init time as a multiple of its floor's. */
  redirectVsFloor: 1.2,
  /** Our p50 over the bare SDK doing the same DynamoDB work, for redirect and GET link. */
  warmP50VsBare: 1.25,
  /** Errors during the loopback throughput runs. */
  throughputErrors: 0,
  /** Hot link (bench/hot-link.ts): its p99 as a multiple of a cold link's p99 in the same run. */
  hotLinkP99VsCold: 1.5,
  /**
   * USD per million redirects behind the front door (Lambda, DynamoDB, events, the counter work at
   * the hot link's batch size, X-Ray, CloudWatch Logs); CloudFront, its function and WAF are their
   * own columns.
   */
  redirectBehindFrontDoorUsd: 0.62,
  /** USD per million redirects, everything included, WAF on. */
  redirectAllInWithWafUsd: 2.35,
  /**
   * Hot links at the edge (bench/edge-hot-links.ts): USD per million edge-answered redirects, all
   * in with WAF, and beyond CloudFront's request, its function and WAF (the store read, the
   * real-time log line, the log stream, the log consumer, the click event and counter work).
   */
  edgeAnsweredAllInUsd: 2.0,
  edgeAnsweredBeyondDoorUsd: 0.3,
  /** USD per million origin-answered redirects with the hot set on (a store read, a log line and its stream more). */
  originWithHotSetBehindDoorUsd: 0.68,
  originWithHotSetAllInUsd: 2.4,
  /** A viral link (20,000 clicks/s) is in the hot set within one refresh interval, seconds. */
  viralHotWithinSeconds: 60,
  /**
   * The scaled-down production load (bench/hot-keys.ts): throttled writes on the outbound event
   * log and the rate limiter's counters, and events lost, over the whole run.
   */
  hotKeysThrottledWrites: 0,
  hotKeysLostEvents: 0,
  /**
   * USD per million clicks of the click counters with duplicates settled (exact counts), for the
   * costliest case: a link clicked once per consumer batch and once per hour (one counter update,
   * one consumer invocation, one settle read and update per click). With the settled counts of
   * 14 days the bench's link item is 3 write units: 2 x $1.875 of writes, $0.125 of read, ~$0.2
   * of invocation, about $4.1.
   */
  countersWithDuplicatesSettledUsd: 4.5,
  /** USD of one link-analytics dashboard view deployed (Athena bytes scanned), workspace with 1M events in 90 days. */
  dashboardViewUsd: 0.001,
  /**
   * USD of one 90-day link view on the deployed lake layout (lake model, bench/lake-cost.ts): S3
   * LIST and GET requests and Athena's scanned bytes, both queries.
   */
  lakeViewUsd: 0.001,
  /** Audit items the redirect writes: the audit log leaves the redirect path unchanged. */
  redirectAuditItems: 0,
  /** @linkservice/sdk bundled with its dependencies, minified and gzipped (bench/sdk-size.ts). */
  sdkGzipBytes: 15 * 1024,
  /** The redirect rules' matcher, worst case (20 rules x 10 conditions, no match), p99 in microseconds. */
  rulesMatcherP99Us: 50,
  /** A 50/50 A/B test over 10,000 simulated visitors: each side's share, in percent. */
  variantShareMinPercent: 48,
  variantShareMaxPercent: 52,
  /** @linkservice/web's script tag build, minified and gzipped (bench/sdk-size.ts): at most 2 KB. */
  webScriptGzipBytes: 2 * 1024,
} as const;

/** The redirect's handler: its init has the tightest budget. */
export const REDIRECT = 'edge-links';

/** The QR handlers carry the QR encoder and have their own init-time budget. */
export const isQrHandler = (handler: string) => handler.endsWith('-qr');

/** The init-time budget a handler is judged on, as a multiple of its floor's. */
export const initLimitOf = (handler: string): number =>
  handler === REDIRECT
    ? budgets.redirectVsFloor
    : isQrHandler(handler)
      ? budgets.qrHandlerVsFloor
      : budgets.handlerVsFloor;

export interface BudgetResult {
  name: string;
  limit: string;
  measured: string;
  pass: boolean;
}
