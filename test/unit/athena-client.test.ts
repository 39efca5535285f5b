import { describe, expect, it } from 'vitest';
import { aggregateQuery, exportPageQuery } from '@shared/analytics/query/analytics-sql';
import { analyticsWindow } from '@shared/analytics/query/analytics-window';
import {
  ATHENA_CONNECTION_TIMEOUT_MS,
  ATHENA_MAX_ATTEMPTS,
  ATHENA_REQUEST_TIMEOUT_MS,
  createAthenaClient,
} from '@shared/analytics/athena-client';
import { createAthenaEngine } from '@shared/analytics/query/athena-engine';
import { awsLoopback, loopbackCredentials } from '@test/support/aws-loopback';
import { athenaDialectProblems } from '@test/support/athena-dialect';

const aws = awsLoopback();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOW = new Date('2026-03-15T10:30:00.000Z');

/**
 * One JSON body every call of a query can parse: the client's deserializers take the members of
 * their own output shape (QueryExecutionId; QueryExecution; ResultSet) and skip the others.
 */
const succeededWithRows = {
  QueryExecutionId: 'qe-1',
  QueryExecution: { QueryExecutionId: 'qe-1', Status: { State: 'SUCCEEDED' } },
  ResultSet: {
    Rows: [
      { Data: [{ VarCharValue: 'event_id' }, { VarCharValue: 'occurred_at' }] },
      { Data: [{ VarCharValue: 'evt-1' }, {}] },
    ],
    ResultSetMetadata: {
      ColumnInfo: [
        { Name: 'event_id', Type: 'varchar' },
        { Name: 'occurred_at', Type: 'varchar' },
      ],
    },
  },
};

const engineOverLoopback = () =>
  createAthenaEngine({
    athena: createAthenaClient({ region: 'eu-west-1', endpoint: aws.endpoint, credentials: loopbackCredentials }),
    workgroup: 'analytics-wg',
    database: 'linkservice_events',
    sleep: async () => {},
  });

describe('the Athena engine over the official @aws-sdk/client-athena, on the wire', () => {
  it('sends the exact QueryString and ExecutionParameters, signed, with reuse off and a request token', async () => {
    aws.seen = [];
    aws.reply = { status: 200, json: succeededWithRows };
    const window = analyticsWindow('24h', NOW);
    const query = aggregateQuery({
      workspaceId: 'ws_A',
      scope: { kind: 'link', linkId: "lnk_1' OR '1'='1" },
      window,
      traffic: 'human',
      unit: 'hour',
    });
    await engineOverLoopback().query(query, {
      workspaceId: 'ws_A',
      firstDay: window.firstDay,
      lastDay: window.lastDay,
    });
    expect(aws.seen.map((r) => r.headers['x-amz-target'])).toEqual([
      'AmazonAthena.StartQueryExecution',
      'AmazonAthena.GetQueryExecution',
      'AmazonAthena.GetQueryResults',
    ]);
    const start = aws.seen[0]!;
    expect(start.method).toBe('POST');
    expect(start.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(start.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/athena\/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$/,
    );
    const body = JSON.parse(start.body);
    expect(body.QueryString).toBe(query.sql);
    expect(athenaDialectProblems(body.QueryString)).toEqual([]);
    expect(body.QueryString).toContain('date_trunc(\'hour\', from_iso8601_timestamp("timestamp"))');
    // Tenant values never in the text; every one a quoted literal, in `?` order.
    expect(body.QueryString).not.toContain('ws_A');
    expect(body.ExecutionParameters).toEqual([
      // events_compacted: workspace, days, time span, link, traffic
      "'ws_A'",
      "'2026-03-14'",
      "'2026-03-15'",
      "'2026-03-14T11:00:00.000Z'",
      "'2026-03-15T10:31:00.000Z'",
      "'lnk_1'' OR ''1''=''1'",
      "'human'",
      "'human'",
      // events (raw): shard, workspace, days, the first day's hours, time span, link, traffic
      expect.stringMatching(/^'\d\d'$/),
      "'ws_A'",
      "'2026-03-14'",
      "'2026-03-15'",
      "'2026-03-14'",
      "'11'",
      "'2026-03-14T11:00:00.000Z'",
      "'2026-03-15T10:31:00.000Z'",
      "'lnk_1'' OR ''1''=''1'",
      "'human'",
      "'human'",
      // raw rows already compacted are dropped: workspace, days
      "'ws_A'",
      "'2026-03-14'",
      "'2026-03-15'",
    ]);
    expect(body.ExecutionParameters).toHaveLength(query.params.length);
    expect(body.WorkGroup).toBe('analytics-wg');
    expect(body.QueryExecutionContext).toEqual({ Database: 'linkservice_events', Catalog: 'AwsDataCatalog' });
    expect(body.ResultReuseConfiguration).toEqual({ ResultReuseByAgeConfiguration: { Enabled: false } });
    expect(body.ClientRequestToken).toMatch(UUID);
    expect(JSON.parse(aws.seen[2]!.body)).toEqual({ QueryExecutionId: 'qe-1', MaxResults: 1000 });
  });

  it('maps the parsed result rows (header row dropped, null cells null)', async () => {
    aws.reply = { status: 200, json: succeededWithRows };
    const window = analyticsWindow('7d', NOW);
    const rows = await engineOverLoopback().query(
      exportPageQuery({ workspaceId: 'ws_A', scope: { kind: 'workspace' }, window }, 10, null),
      {
        workspaceId: 'ws_A',
        firstDay: window.firstDay,
        lastDay: window.lastDay,
      },
    );
    expect(rows).toEqual([{ event_id: 'evt-1', occurred_at: null }]);
  });

  it('retries throttling with the standard strategy, and not a refused request', async () => {
    const client = createAthenaClient({
      region: 'eu-west-1',
      endpoint: aws.endpoint,
      credentials: loopbackCredentials,
    });
    expect(await client.config.maxAttempts()).toBe(ATHENA_MAX_ATTEMPTS);
    const { GetQueryExecutionCommand } = await import('@aws-sdk/client-athena');
    aws.seen = [];
    aws.reply = { status: 400, json: { __type: 'TooManyRequestsException', Message: 'Rate exceeded' } };
    await expect(client.send(new GetQueryExecutionCommand({ QueryExecutionId: 'qe-1' }))).rejects.toMatchObject({
      name: 'TooManyRequestsException',
    });
    expect(aws.seen).toHaveLength(ATHENA_MAX_ATTEMPTS);
    aws.seen = [];
    aws.reply = { status: 400, json: { __type: 'InvalidRequestException', Message: 'WorkGroup is disabled' } };
    await expect(client.send(new GetQueryExecutionCommand({ QueryExecutionId: 'qe-1' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: 'WorkGroup is disabled',
    });
    expect(aws.seen).toHaveLength(1);
    client.destroy();
  });

  it('has explicit connection and request timeouts', async () => {
    const client = createAthenaClient({ region: 'eu-west-1' });
    const handler = client.config.requestHandler as unknown as {
      configProvider: Promise<{ connectionTimeout?: number; requestTimeout?: number }>;
    };
    expect(await handler.configProvider).toMatchObject({
      connectionTimeout: ATHENA_CONNECTION_TIMEOUT_MS,
      requestTimeout: ATHENA_REQUEST_TIMEOUT_MS,
    });
    client.destroy();
  });
});
