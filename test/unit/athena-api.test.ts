import { AthenaClient, GetQueryResultsCommand, StartQueryExecutionCommand } from '@aws-sdk/client-athena';
import { describe, expect, it } from 'vitest';
import { awsLoopback, loopbackCredentials } from '@test/support/aws-loopback';
import { createAthenaApi } from '@shared/analytics/athena-api';

const aws = awsLoopback();
const credentials = loopbackCredentials;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;


/** Sends `ours` then `theirs` (the SDK client) and compares what the server received. */
const compareWire = async <T, U>(ours: () => Promise<T>, theirs: () => Promise<U>) => {
  aws.seen = [];
  const mine = await ours();
  const reference = await theirs();
  const [a, b] = aws.seen;
  expect(a!.method).toBe(b!.method);
  expect(a!.url).toBe(b!.url);
  for (const name of ['content-type', 'x-amz-target']) expect(a!.headers[name]).toBe(b!.headers[name]);
  expect(a!.headers.authorization).toMatch(
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/athena\/aws4_request, SignedHeaders=[^,]*host;[^,]*x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/,
  );
  return { mine, reference, sent: JSON.parse(a!.body), sdkSent: JSON.parse(b!.body), target: a!.headers['x-amz-target'] };
};

describe('Athena API (the engine\'s four calls without the Athena client package)', () => {
  const api = () => createAthenaApi({ region: 'eu-west-1', endpoint: aws.endpoint, credentials });
  const sdk = () => new AthenaClient({ region: 'eu-west-1', endpoint: aws.endpoint, credentials, maxAttempts: 1 });

  it('StartQueryExecution: the SDK client\'s target, content type and JSON body (parameters, result reuse, a request token)', async () => {
    const input = {
      QueryString: 'SELECT count(*) FROM events WHERE workspace_id = ? AND dt >= ?',
      ExecutionParameters: ["'ws_A'", "'2026-03-09'"],
      QueryExecutionContext: { Database: 'linkservice_events', Catalog: 'AwsDataCatalog' },
      WorkGroup: 'analytics-wg',
      ResultReuseConfiguration: { ResultReuseByAgeConfiguration: { Enabled: true, MaxAgeInMinutes: 5 } },
    };
    aws.reply = { status: 200, json: { QueryExecutionId: 'qe-1' } };
    const client = sdk();
    const { mine, reference, sent, sdkSent, target } = await compareWire(
      () => api().startQueryExecution(input),
      () => client.send(new StartQueryExecutionCommand(input)),
    );
    client.destroy();
    expect(target).toBe('AmazonAthena.StartQueryExecution');
    // Both fill the idempotency token with a fresh UUID; the rest is identical.
    expect(sent.ClientRequestToken).toMatch(UUID);
    expect(sdkSent.ClientRequestToken).toMatch(UUID);
    expect({ ...sent, ClientRequestToken: 'x' }).toEqual({ ...sdkSent, ClientRequestToken: 'x' });
    expect(mine).toEqual({ QueryExecutionId: reference.QueryExecutionId });
  });

  it('GetQueryResults: same request, and the same parsed rows, metadata and token', async () => {
    const input = { QueryExecutionId: 'qe-1', NextToken: 'page-3', MaxResults: 1000 };
    aws.reply = {
      status: 200,
      json: {
        UpdateCount: 0,
        ResultSet: {
          Rows: [{ Data: [{ VarCharValue: 'event_id' }, { VarCharValue: 'occurred_at' }] }, { Data: [{ VarCharValue: 'evt-1' }, {}] }],
          ResultSetMetadata: {
            ColumnInfo: [
              { CatalogName: 'hive', SchemaName: '', TableName: '', Name: 'event_id', Label: 'event_id', Type: 'varchar', Precision: 2147483647, Scale: 0, Nullable: 'UNKNOWN', CaseSensitive: true },
              { CatalogName: 'hive', SchemaName: '', TableName: '', Name: 'occurred_at', Label: 'occurred_at', Type: 'varchar', Precision: 2147483647, Scale: 0, Nullable: 'UNKNOWN', CaseSensitive: true },
            ],
          },
        },
        NextToken: 'page-6',
      },
    };
    const client = sdk();
    const { mine, reference, sent, sdkSent, target } = await compareWire(
      () => api().getQueryResults(input),
      () => client.send(new GetQueryResultsCommand(input)),
    );
    client.destroy();
    expect(target).toBe('AmazonAthena.GetQueryResults');
    expect(sent).toEqual(sdkSent);
    const { $metadata: _, ...parsed } = reference;
    expect(mine).toEqual(parsed);
  });

  it('names errors by their Athena type with the message, as the SDK does', async () => {
    aws.reply = { status: 400, json: { __type: 'com.amazonaws.athena#InvalidRequestException', Message: 'WorkGroup is disabled', AthenaErrorCode: 'INVALID_INPUT' } };
    await expect(api().getQueryExecution({ QueryExecutionId: 'qe-1' })).rejects.toMatchObject({ name: 'InvalidRequestException', message: 'WorkGroup is disabled' });
    const client = sdk();
    await expect(client.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
      message: 'WorkGroup is disabled',
    });
    client.destroy();
    aws.reply = { status: 400, headers: { 'x-amzn-errortype': 'TooManyRequestsException:http://internal' }, json: { Message: 'slow down' } };
    await expect(api().stopQueryExecution({ QueryExecutionId: 'qe-1' })).rejects.toMatchObject({ name: 'TooManyRequestsException', message: 'slow down' });
  });

  it('retries throttling and 5xx up to maxAttempts, not other errors', async () => {
    const retrying = createAthenaApi({ region: 'eu-west-1', endpoint: aws.endpoint, credentials, maxAttempts: 3 });
    aws.seen = [];
    aws.reply = { status: 500, json: { __type: 'InternalServerException', Message: 'oops' } };
    await expect(retrying.getQueryExecution({ QueryExecutionId: 'qe-1' })).rejects.toMatchObject({ name: 'InternalServerException' });
    expect(aws.seen).toHaveLength(3);
    aws.seen = [];
    aws.reply = { status: 400, json: { __type: 'InvalidRequestException', Message: 'no' } };
    await expect(retrying.getQueryExecution({ QueryExecutionId: 'qe-1' })).rejects.toMatchObject({ name: 'InvalidRequestException' });
    expect(aws.seen).toHaveLength(1);
  });
});
