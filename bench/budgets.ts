/** Budgets of issues 8 and 15 (floors re-based on the services each handler calls); the report marks each pass or fail and `--check` exits non-zero on a fail. */
export const budgets = {
  /** Every handler's bundle size and init time, as a multiple of its floor's (bench/floors.ts: the bare SDK clients of the services it calls). */
  handlerVsFloor: 1.3,
  /** The redirect handler's, likewise. */
  redirectVsFloor: 1.2,
  /** Our p50 over the bare SDK doing the same DynamoDB work, for redirect and GET link. */
  warmP50VsBare: 1.25,
  /** Errors during the loopback throughput runs. */
  throughputErrors: 0,
} as const;

export interface BudgetResult {
  name: string;
  limit: string;
  measured: string;
  pass: boolean;
}
