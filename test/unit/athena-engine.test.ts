import { describe, expect, it } from 'vitest';
import { aggregateQuery, exportPageQuery } from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import { createAthenaEngine } from '@shared/analytics/query/athena-engine';
import { computeAnalyticsData } from '@shared/analytics/query/compute-analytics';
import { engineFromConfig } from '@shared/analytics/query/analytics-backend';
import { localAnalyticsEngine } from '@shared/local/local-services';
import { fakeAthenaApi, resultPages, type AthenaCall } from '@test/support/fake-athena';

const window = analyticsWindow('7d', new Date('2026-03-15T10:30:00.000Z'));
const scope = { workspaceId: 'ws_A', firstDay: window.firstDay, lastDay: window.lastDay };
const filter = {
  workspaceId: 'ws_A',
  scope: { kind: 'link', linkId: "lnk_1' OR '1'='1" } as const,
  window,
  traffic: 'human' as const,
};

const succeeding =
  (pages: unknown[], runningPolls = 2) =>
  (call: AthenaCall, calls: AthenaCall[]) => {
    switch (call.operation) {
      case 'StartQueryExecution':
        return { body: { QueryExecutionId: 'qe-1' } };
      case 'GetQueryExecution': {
        const polls = calls.filter((c) => c.operation === 'GetQueryExecution').length;
        const state = polls === 1 ? 'QUEUED' : polls <= runningPolls ? 'RUNNING' : 'SUCCEEDED';
        return { body: { QueryExecution: { QueryExecutionId: 'qe-1', Status: { State: state } } } };
      }
      case 'GetQueryResults': {
        const token = call.input.NextToken as string | undefined;
        return { body: pages[token ? Number(token.slice(5)) / 3 : 0] };
      }
      default:
        return { status: 400, body: { __type: 'InvalidRequestException', Message: `unexpected ${call.operation}` } };
    }
  };

const engineWith = (
  respond: Parameters<typeof fakeAthenaApi>[0],
  extra: Partial<Parameters<typeof createAthenaEngine>[0]> = {},
) => {
  const { athena, calls } = fakeAthenaApi(respond);
  const engine = createAthenaEngine({
    athena,
    workgroup: 'analytics-wg',
    database: 'linkservice_events',
    sleep: async () => {},
    ...extra,
  });
  return { engine, calls };
};

describe('Athena engine over the official client (requests as serialized by @aws-sdk/client-athena)', () => {
  it('starts the same SQL text DuckDB runs, with bound parameters, workgroup, database and result reuse off', async () => {
    const pages = resultPages(['grouping_id', 'human_clicks'], [['511', '4']], 3);
    const { engine, calls } = engineWith(succeeding(pages));
    const query = aggregateQuery({ ...filter, unit: 'day' });
    await engine.query(query, scope);
    const start = calls.find((c) => c.operation === 'StartQueryExecution')!;
    expect(start.input.QueryString).toBe(query.sql);
    expect(start.input.QueryString).not.toContain('ws_A');
    expect(start.input.QueryString).not.toContain('lnk_1');
    expect(start.input.ExecutionParameters).toEqual(query.params.map((p) => `'${p.replaceAll("'", "''")}'`));
    expect(start.input.ExecutionParameters[0]).toBe("'ws_A'");
    expect(start.input.ExecutionParameters).toContain("'lnk_1'' OR ''1''=''1'");
    expect(start.input.WorkGroup).toBe('analytics-wg');
    expect(start.input.QueryExecutionContext).toEqual({ Database: 'linkservice_events', Catalog: 'AwsDataCatalog' });
    // Reuse matches on the text alone, which every workspace shares: off, by construction.
    expect(start.input.ResultReuseConfiguration).toEqual({ ResultReuseByAgeConfiguration: { Enabled: false } });
    // Every query is pruned to one workspace (compacted partition; raw shard and column) and the window's days.
    expect(query.sql).toMatch(/workspace_id = \?\s+AND dt >= \?\s+AND dt <= \?/);
    expect(query.sql).toMatch(/shard = \?\s+AND workspaceId = \?\s+AND dt >= \?\s+AND dt <= \?/);
  });

  it('polls until SUCCEEDED and pages GetQueryResults, dropping the header row', async () => {
    const rows = Array.from({ length: 7 }, (_, i) => [`evt-${i}`, i % 2 ? null : `2026-03-1${i}T00:00:00.000Z`]);
    const pages = resultPages(['event_id', 'occurred_at'], rows, 3);
    const { engine, calls } = engineWith(succeeding(pages, 3));
    const result = await engine.query(exportPageQuery({ ...filter, traffic: undefined }, 10, null), scope);
    expect(result).toEqual(rows.map(([id, at]) => ({ event_id: id, occurred_at: at })));
    expect(calls.map((c) => c.operation)).toEqual([
      'StartQueryExecution',
      'GetQueryExecution',
      'GetQueryExecution',
      'GetQueryExecution',
      'GetQueryExecution',
      'GetQueryResults',
      'GetQueryResults',
      'GetQueryResults',
    ]);
    expect(calls.filter((c) => c.operation === 'GetQueryResults').map((c) => c.input)).toEqual([
      { QueryExecutionId: 'qe-1', MaxResults: 1000 },
      { QueryExecutionId: 'qe-1', MaxResults: 1000, NextToken: 'page-3' },
      { QueryExecutionId: 'qe-1', MaxResults: 1000, NextToken: 'page-6' },
    ]);
  });

  it('answers 503 analytics_unavailable when the query fails (e.g. table not found: not initialized)', async () => {
    const { engine } = engineWith((call) =>
      call.operation === 'StartQueryExecution'
        ? { body: { QueryExecutionId: 'qe-2' } }
        : {
            body: {
              QueryExecution: {
                Status: {
                  State: 'FAILED',
                  StateChangeReason: "TABLE_NOT_FOUND: line 1:1: Table 'awsdatacatalog.db.events' does not exist",
                },
              },
            },
          },
    );
    await expect(engine.query(aggregateQuery({ ...filter, unit: 'day' }), scope)).rejects.toMatchObject({
      code: 'analytics_unavailable',
      status: 503,
    });
  });

  it('answers 503 when Athena refuses or cannot be reached', async () => {
    const { engine } = engineWith(() => ({
      status: 400,
      body: { __type: 'InvalidRequestException', Message: 'WorkGroup is disabled' },
    }));
    await expect(engine.query(aggregateQuery({ ...filter, unit: 'day' }), scope)).rejects.toMatchObject({
      code: 'analytics_unavailable',
    });
  });

  it('stops a query that outlives the request deadline and answers 503', async () => {
    let clock = 1_000;
    const { engine, calls } = engineWith(
      (call) =>
        call.operation === 'StartQueryExecution'
          ? { body: { QueryExecutionId: 'qe-3' } }
          : call.operation === 'StopQueryExecution'
            ? { body: {} }
            : { body: { QueryExecution: { Status: { State: 'RUNNING' } } } },
      {
        now: () => clock,
        sleep: (ms) => {
          clock += ms;
          return Promise.resolve();
        },
      },
    );
    await expect(
      engine.query(aggregateQuery({ ...filter, unit: 'day' }), { ...scope, deadline: 5_000 }),
    ).rejects.toMatchObject({ code: 'analytics_unavailable' });
    expect(calls.at(-1)).toEqual({ operation: 'StopQueryExecution', input: { QueryExecutionId: 'qe-3' } });
    expect(clock).toBe(5_000);
  });

  it('polls with exponential backoff, capped, and never sleeps past the deadline', async () => {
    let clock = 0;
    const sleeps: number[] = [];
    const { engine } = engineWith(
      (call) =>
        call.operation === 'StartQueryExecution'
          ? { body: { QueryExecutionId: 'qe-4' } }
          : call.operation === 'StopQueryExecution'
            ? { body: {} }
            : { body: { QueryExecution: { Status: { State: 'RUNNING' } } } },
      {
        now: () => clock,
        sleep: (ms) => {
          sleeps.push(ms);
          clock += ms;
          return Promise.resolve();
        },
      },
    );
    await expect(
      engine.query(aggregateQuery({ ...filter, unit: 'day' }), { ...scope, deadline: 4_000 }),
    ).rejects.toMatchObject({ code: 'analytics_unavailable' });
    expect(sleeps).toEqual([100, 200, 400, 800, 1000, 1000, 500]);
  });

  it('starts nothing once the request deadline has passed (one deadline for every query of a request)', async () => {
    const { engine, calls } = engineWith(succeeding([]), { now: () => 10_000 });
    await expect(
      engine.query(aggregateQuery({ ...filter, unit: 'day' }), { ...scope, deadline: 10_000 }),
    ).rejects.toMatchObject({ code: 'analytics_unavailable' });
    expect(calls).toEqual([]);
  });
});

describe('raw read past the compaction watermark (Athena)', () => {
  const NOW = new Date('2026-03-15T10:30:00.000Z');
  const startedParams = async (readWatermark?: () => Promise<string | undefined>) => {
    const { engine, calls } = engineWith(succeeding(resultPages(['grouping_id'], [], 10)), { readWatermark });
    await computeAnalyticsData(engine, {
      workspaceId: 'ws_A',
      scope: { kind: 'link', linkId: 'lnk_1' },
      query: { range: '90d', traffic: 'all' },
      now: NOW,
    });
    return calls
      .filter((c) => c.operation === 'StartQueryExecution')
      .map((c) => c.input.ExecutionParameters as string[]);
  };

  it("puts the watermark's read start (less the late-read hours) in both queries' raw predicates", async () => {
    const window = analyticsWindow('90d', NOW);
    const before = await startedParams();
    expect(before).toHaveLength(2);
    // Without a watermark: the range's first day bounds the raw part and its NOT EXISTS too.
    for (const params of before) expect(params.filter((p) => p === `'${window.firstDay}'`)).toHaveLength(3);
    const after = await startedParams(() => Promise.resolve('2026-03-15T10:00:00.000Z'));
    expect(after).toHaveLength(2);
    for (const params of after) {
      expect(params.filter((p) => p === `'${window.firstDay}'`)).toHaveLength(1);
      // (dt > '2026-03-15' OR hour >= '07'): 3 hours before the current hour.
      expect(params).toContain("'07'");
    }
  });

  it('reads the watermark from the lake bucket only when LAKE_BUCKET is configured', async () => {
    const without = engineFromConfig({
      ATHENA_WORKGROUP: 'wg',
      ATHENA_DATABASE: 'db',
      LAKE_BUCKET: undefined,
      AWS_REGION: 'eu-west-1',
    });
    expect(await without.watermark()).toBeUndefined();
  });
});

describe('engine selection', () => {
  it('deployed: uses Athena when configured, and is 503 otherwise, even with a local lake', () => {
    expect(engineFromConfig({ ATHENA_WORKGROUP: 'wg', ATHENA_DATABASE: 'db', AWS_REGION: 'eu-west-1' }).name).toBe(
      'athena',
    );
    expect(() =>
      engineFromConfig({ ATHENA_WORKGROUP: undefined, ATHENA_DATABASE: undefined, AWS_REGION: 'eu-west-1' }),
    ).toThrow(expect.objectContaining({ code: 'analytics_unavailable' }));
  });

  it('locally: uses Athena when configured, DuckDB with a local lake, and is 503 with neither', () => {
    expect(
      localAnalyticsEngine({
        ATHENA_WORKGROUP: 'wg',
        ATHENA_DATABASE: 'db',
        LOCAL_LAKE_DIR: '/tmp/lake',
        AWS_REGION: 'eu-west-1',
      }).name,
    ).toBe('athena');
    expect(
      localAnalyticsEngine({
        ATHENA_WORKGROUP: undefined,
        ATHENA_DATABASE: undefined,
        LOCAL_LAKE_DIR: '/tmp/lake',
        AWS_REGION: 'eu-west-1',
      }).name,
    ).toBe('duckdb');
    expect(() =>
      localAnalyticsEngine({
        ATHENA_WORKGROUP: undefined,
        ATHENA_DATABASE: undefined,
        LOCAL_LAKE_DIR: undefined,
        AWS_REGION: 'eu-west-1',
      }),
    ).toThrow(expect.objectContaining({ code: 'analytics_unavailable' }));
  });
});
