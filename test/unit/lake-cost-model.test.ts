import { describe, expect, it } from 'vitest';
import { budgets } from '@bench/budgets';
import { lakeModelReport, ninetyDayLayouts, viewCost, ATHENA_MIN_BYTES } from '@bench/lake-cost';

/**
 * The lake cost model on the layout the code builds (gzip raw tail, daily files in monthly
 * partitions, hourly today): a 90-day link view within its budget with S3 LIST and GET requests
 * and Athena's bytes counted, and the layouts before it over budget (the model would catch a
 * regression to hourly files or day partitions). `npm run bench -- --check` judges the same line.
 */
describe('lake cost model', () => {
  it('prices the built layout within the $0.001 view budget, and the unmerged ones over it', async () => {
    const { summary, failures } = await lakeModelReport();
    expect(failures).toEqual([]);
    expect(summary.viewUsd).toBeLessThanOrEqual(budgets.lakeViewUsd);
    expect(summary.gzipRatio).toBeGreaterThan(5);
    expect(summary.sinkRatio).toBeGreaterThan(5);
    expect(summary.largestUnitScanBytes).toBeLessThanOrEqual(summary.unitBoundBytes);
    expect(Number.isFinite(summary.runsToClear)).toBe(true);
    const costs = ninetyDayLayouts().map((layout) => viewCost(layout, ATHENA_MIN_BYTES / 2));
    const built = costs.filter((c) => c.built);
    expect(built).toHaveLength(1);
    // Hourly files, or daily files in day partitions (90 LISTs a query), are over budget.
    expect(costs.slice(0, 3).every((c) => c.usd > budgets.lakeViewUsd)).toBe(true);
    expect(built[0]!.lists).toBeLessThan(80);
  });
});
