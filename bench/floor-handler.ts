/**
 * The floors: a handler of bare SDK clients of the AWS services a route calls, bundled like every
 * handler. DynamoDB always (GetItem); Kinesis (PutRecords: the event stream) when `__FLOOR_KINESIS__`,
 * SQS (SendMessage: the event spool) when `__FLOOR_SQS__`, Secrets Manager (GetSecretValue: the
 * origin-verify secret) when `__FLOOR_SECRETS__`, Athena
 * (start, poll, results, stop) when `__FLOOR_ATHENA__`, S3 (GetObject: the lake's watermark
 * object, which says where compacted and daily data end) when `__FLOOR_S3__`: build-time
 * constants (bench/floors.ts),
 * so esbuild drops the clients a floor does not use.
 */
import {
  AthenaClient,
  GetQueryExecutionCommand,
  GetQueryResultsCommand,
  StartQueryExecutionCommand,
  StopQueryExecutionCommand,
} from '@aws-sdk/client-athena';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';

declare const __FLOOR_KINESIS__: boolean;
declare const __FLOOR_SQS__: boolean;
declare const __FLOOR_SECRETS__: boolean;
declare const __FLOOR_ATHENA__: boolean;
declare const __FLOOR_S3__: boolean;

const dynamodb = new DynamoDBClient({});
const kinesis = __FLOOR_KINESIS__ ? new KinesisClient({}) : undefined;
const sqs = __FLOOR_SQS__ ? new SQSClient({}) : undefined;
const secrets = __FLOOR_SECRETS__ ? new SecretsManagerClient({}) : undefined;
const athena = __FLOOR_ATHENA__ ? new AthenaClient({}) : undefined;
const s3 = __FLOOR_S3__ ? new S3Client({}) : undefined;

export const handler = async (event: { pk: string }) => {
  if (__FLOOR_SECRETS__ && secrets) await secrets.send(new GetSecretValueCommand({ SecretId: 'origin' }));
  const item = await dynamodb.send(
    new GetItemCommand({ TableName: process.env.TABLE_NAME, Key: { pk: { S: event.pk }, sk: { S: 'LINK' } } }),
  );
  if (__FLOOR_KINESIS__ && kinesis) {
    await kinesis.send(
      new PutRecordsCommand({
        StreamName: 'events',
        Records: [{ Data: Buffer.from(JSON.stringify(item.Item ?? {})), PartitionKey: event.pk }],
      }),
    );
  }
  if (__FLOOR_SQS__ && sqs) await sqs.send(new SendMessageCommand({ QueueUrl: 'spool', MessageBody: '{}' }));
  if (__FLOOR_S3__ && s3) await s3.send(new GetObjectCommand({ Bucket: 'lake', Key: 'compacted/_watermark.json' }));
  if (__FLOOR_ATHENA__ && athena) {
    const { QueryExecutionId } = await athena.send(
      new StartQueryExecutionCommand({ QueryString: 'SELECT 1', WorkGroup: 'wg' }),
    );
    const state = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId }));
    if (state.QueryExecution?.Status?.State !== 'SUCCEEDED')
      await athena.send(new StopQueryExecutionCommand({ QueryExecutionId }));
    return athena.send(new GetQueryResultsCommand({ QueryExecutionId }));
  }
  return item;
};
