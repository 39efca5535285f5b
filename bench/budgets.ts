/** Budgets of issues 8 and 15 (floors re-based on the services each handler calls); the report marks each pass or fail and `--check` exits non-zero on a fail. */
export const budgets = {
  /** Every handler's bundle size and init time, as a multiple of its floor's (bench/floors.ts: the bare SDK clients of the services it calls). */
  handlerVsFloor: 1.3,
  /**
   * The QR handlers' bundle size: they carry the qrcode library (~57 KiB with its PNG encoder),
   * which DESIGN.md asks for instead of our own encoder; their init time stays under handlerVsFloor.
   */
  qrHandlerSizeVsFloor: 1.45,
  /** A 100-link bulk create's warm duration, against API Gateway's 30 s integration timeout. */
  bulk100Ms: 3000,
  /** The redirect handler's, likewise. */
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
  /** USD of one link-analytics dashboard view deployed (Athena bytes scanned), workspace with 1M events in 90 days. */
  dashboardViewUsd: 0.001,
} as const;

export interface BudgetResult {
  name: string;
  limit: string;
  measured: string;
  pass: boolean;
}
