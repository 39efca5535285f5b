/** Budgets of issue 8; the report marks each pass or fail and `--check` exits non-zero on a fail. */
export const budgets = {
  /** Every handler's bundle size and init time, as a multiple of the floor bundle's. */
  handlerVsFloor: 1.3,
  /** The redirect handler's, likewise. */
  redirectVsFloor: 1.15,
  /** Our p50 over the bare SDK doing the same DynamoDB work, for redirect and GET link. */
  warmP50VsBare: 1.25,
  /** Errors during the loopback throughput runs. */
  throughputErrors: 0,
  /** USD of one link-analytics dashboard view deployed (Athena bytes scanned), workspace with 1M events in 90 days. */
  dashboardViewUsd: 0.001,
} as const;

export interface BudgetResult {
  name: string;
  limit: string;
  measured: string;
  pass: boolean;
}
