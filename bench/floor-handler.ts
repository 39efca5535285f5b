/**
 * The floors: a handler of bare SDK clients of the AWS services a route calls, bundled like every
 * handler. DynamoDB always (GetItem); Firehose (PutRecordBatch) when `__FLOOR_FIREHOSE__`, Athena
 * (start, poll, results, stop) when `__FLOOR_ATHENA__`: build-time constants (bench/floors.ts),
 * so esbuild drops the clients a floor does not use.
 */
import { AthenaClient, GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand, StopQueryExecutionCommand } from '@aws-sdk/client-athena';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';

declare const __FLOOR_FIREHOSE__: boolean;
declare const __FLOOR_ATHENA__: boolean;

const dynamodb = new DynamoDBClient({});
const firehose = __FLOOR_FIREHOSE__ ? new FirehoseClient({}) : undefined;
const athena = __FLOOR_ATHENA__ ? new AthenaClient({}) : undefined;

export const handler = async (event: { pk: string }) => {
  const item = await dynamodb.send(new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: event.pk }, sk: { S: 'LINK' } } }));
  if (__FLOOR_FIREHOSE__ && firehose) {
    await firehose.send(new PutRecordBatchCommand({ DeliveryStreamName: 'events', Records: [{ Data: Buffer.from(JSON.stringify(item.Item ?? {})) }] }));
  }
  if (__FLOOR_ATHENA__ && athena) {
    const { QueryExecutionId } = await athena.send(new StartQueryExecutionCommand({ QueryString: 'SELECT 1', WorkGroup: 'wg' }));
    const state = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId }));
    if (state.QueryExecution?.Status?.State !== 'SUCCEEDED') await athena.send(new StopQueryExecutionCommand({ QueryExecutionId }));
    return athena.send(new GetQueryResultsCommand({ QueryExecutionId }));
  }
  return item;
};
