import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { createAthenaEngine } from '@shared/analytics/query/athena-engine';
import { getAppAnalyticsOrThrow } from '@shared/analytics/query/get-app-analytics';
import { getLinkAnalyticsOrThrow } from '@shared/analytics/query/get-link-analytics';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { createShortLink } from '@shared/links/create-link';
import { fakeAthenaApi, resultPages, type AthenaCall } from '@test/support/fake-athena';
import { TEST_ORIGIN } from '@test/support/test-origin';
import { provideServices, resetServices } from '@shared/runtime/services';

const NOW = new Date('2026-03-15T10:30:00.000Z');
let tenant: BootstrapResult;
let linkId: string;

const aggregateColumns = [
  'grouping_id',
  'bucket_start',
  'device_type',
  'human_clicks',
  'bot_clicks',
  'unique_visitors',
  'launch_view_impressions',
  'last_activity_at',
];
const aggregateRows = [
  ['2047', null, null, '7', '2', '5', '3', '2026-03-15T09:00:00.000Z'],
  ['1023', '2026-03-15T00:00:00.000Z', null, '7', '2', '5', '3', '2026-03-15T09:00:00.000Z'],
  ['1535', null, 'mobile', '6', '0', '4', '3', '2026-03-15T09:00:00.000Z'],
  ['1535', null, 'bot', '0', '2', '1', '0', '2026-03-14T09:00:00.000Z'],
  ['1535', null, null, '1', '0', '1', '0', '2026-03-13T09:00:00.000Z'],
];

const fakeAthena = () =>
  fakeAthenaApi((call: AthenaCall, calls) => {
    const id = `qe-${calls.filter((c) => c.operation === 'StartQueryExecution').length}`;
    if (call.operation === 'StartQueryExecution') return { body: { QueryExecutionId: id } };
    if (call.operation === 'GetQueryExecution') return { body: { QueryExecution: { Status: { State: 'SUCCEEDED' } } } };
    const start = calls.find(
      (c) =>
        c.operation === 'StartQueryExecution' &&
        `qe-${calls.filter((x) => x.operation === 'StartQueryExecution').indexOf(c) + 1}` ===
          call.input.QueryExecutionId,
    )!;
    const isAggregate = String(start.input.QueryString).includes('GROUPING SETS');
    const columns = isAggregate ? aggregateColumns : ['event_id', 'occurred_at', 'event_type', 'traffic_type'];
    const rows = isAggregate ? aggregateRows : [['evt-1', '2026-03-15T09:00:00.000Z', 'click', 'human']];
    return { body: resultPages(columns, rows, 100)[0] };
  });

beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'x', edgeUrl: 'y' });
  linkId = (
    await createShortLink(tenant.workspaceId, { url: 'https://example.com/c', domain: tenant.domain }, TEST_ORIGIN)
  ).id;
});
afterAll(() => {
  resetServices('analyticsEngine');
});

describe('analytics answers computed by Athena are cached in the table', () => {
  it('maps Athena rows into AnalyticsData, then serves a refresh from the table without querying', async () => {
    const { athena, calls } = fakeAthena();
    provideServices({
      analyticsEngine: createAthenaEngine({ athena, workgroup: 'wg', database: 'db', sleep: async () => {} }),
    });
    const first = await getLinkAnalyticsOrThrow(tenant.workspaceId, linkId, { range: '7d', traffic: 'all' }, NOW);
    expect(first.summary).toMatchObject({
      humanClicks: 7,
      botClicks: 2,
      totalClicks: 9,
      uniqueVisitors: 5,
      launchViewImpressions: 3,
      lastActivityAt: '2026-03-15T09:00:00.000Z',
    });
    expect(first.timeseries).toHaveLength(7);
    expect(first.timeseries.at(-1)).toMatchObject({
      bucketStart: '2026-03-15T00:00:00.000Z',
      humanClicks: 7,
      botClicks: 2,
      totalClicks: 9,
      uniqueVisitors: 5,
    });
    expect(first.deviceBreakdown).toEqual([
      { key: 'mobile', label: 'Mobile', count: 6, percentage: 66.67 },
      { key: 'bot', label: 'Bot', count: 2, percentage: 22.22 },
      { key: 'unknown', label: 'Unknown', count: 1, percentage: 11.11 },
    ]);
    expect(first.recentEvents).toEqual([
      { eventId: 'evt-1', eventType: 'click', occurredAt: '2026-03-15T09:00:00.000Z', isBot: false },
    ]);
    const queriesAfterFirst = calls.filter((c) => c.operation === 'StartQueryExecution').length;
    expect(queriesAfterFirst).toBe(2);

    const item = await getDocumentClient().send(
      new GetCommand({
        TableName: tableName(),
        Key: keys.analyticsCache(tenant.workspaceId, 'link', linkId, '7d', 'all'),
      }),
    );
    expect(item.Item).toMatchObject({ ttl: Math.floor(NOW.getTime() / 1000) + 300, computedAt: NOW.toISOString() });

    const refresh = await getLinkAnalyticsOrThrow(
      tenant.workspaceId,
      linkId,
      { range: '7d', traffic: 'all' },
      new Date(NOW.getTime() + 60_000),
    );
    expect(refresh).toEqual(first);
    expect(calls.filter((c) => c.operation === 'StartQueryExecution').length).toBe(queriesAfterFirst);
  });

  it('keys the cache by range, traffic and subject, and recomputes after the TTL', async () => {
    const { athena, calls } = fakeAthena();
    provideServices({
      analyticsEngine: createAthenaEngine({ athena, workgroup: 'wg', database: 'db', sleep: async () => {} }),
    });
    const starts = () => calls.filter((c) => c.operation === 'StartQueryExecution').length;
    await getLinkAnalyticsOrThrow(tenant.workspaceId, linkId, { range: '30d', traffic: 'human' }, NOW);
    expect(starts()).toBe(2);
    await getLinkAnalyticsOrThrow(tenant.workspaceId, linkId, { range: '30d', traffic: 'bots' }, NOW);
    expect(starts()).toBe(4);
    await getLinkAnalyticsOrThrow(tenant.workspaceId, linkId, { range: '90d', traffic: 'bots' }, NOW);
    expect(starts()).toBe(6);
    await getAppAnalyticsOrThrow(tenant.workspaceId, tenant.deepLinkApp.id, { range: '90d', traffic: 'bots' }, NOW);
    expect(starts()).toBe(9);
    await getLinkAnalyticsOrThrow(
      tenant.workspaceId,
      linkId,
      { range: '30d', traffic: 'human' },
      new Date(NOW.getTime() + 299_000),
    );
    expect(starts()).toBe(9);
    await getLinkAnalyticsOrThrow(
      tenant.workspaceId,
      linkId,
      { range: '30d', traffic: 'human' },
      new Date(NOW.getTime() + 301_000),
    );
    expect(starts()).toBe(11);
  });
});
