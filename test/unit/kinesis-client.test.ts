import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsLoopback, loopbackCredentials as credentials } from '@test/support/aws-loopback';
import { createKinesisPut, kinesisTimeouts } from '@shared/events/kinesis-client';

const aws = awsLoopback();

const input = {
  StreamName: 'events',
  Records: [
    { Data: Buffer.from('{"a":1}\n'), PartitionKey: 'k1' },
    { Data: Buffer.from('{"b":"é"}\n'), PartitionKey: 'k2' },
  ],
};

describe('createKinesisPut (the Kinesis SDK client, one attempt per call)', () => {
  it('puts the batch on the wire as PutRecords: target, JSON 1.1, base64 records with partition keys, SigV4 for kinesis', async () => {
    aws.reply = {
      status: 200,
      json: {
        FailedRecordCount: 1,
        Records: [
          { SequenceNumber: '4959', ShardId: 'shardId-000000000001' },
          { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'slow down' },
        ],
      },
    };
    aws.seen = [];
    const put = createKinesisPut({ region: 'eu-west-1', endpoint: aws.endpoint, credentials });
    const out = await put(input);
    expect(aws.seen).toHaveLength(1);
    const [request] = aws.seen;
    expect(request!.method).toBe('POST');
    expect(request!.headers['x-amz-target']).toBe('Kinesis_20131202.PutRecords');
    expect(request!.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(JSON.parse(request!.body)).toEqual({
      StreamName: 'events',
      Records: [
        { Data: Buffer.from('{"a":1}\n').toString('base64'), PartitionKey: 'k1' },
        { Data: Buffer.from('{"b":"é"}\n').toString('base64'), PartitionKey: 'k2' },
      ],
    });
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/kinesis\/aws4_request, /,
    );
    expect(out).toEqual({
      FailedRecordCount: 1,
      Records: [
        { SequenceNumber: '4959', ShardId: 'shardId-000000000001' },
        { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'slow down' },
      ],
    });
  });

  it('names errors by their Kinesis type and makes one attempt (the sink retries per record)', async () => {
    const put = createKinesisPut({ region: 'eu-west-1', endpoint: aws.endpoint, credentials });
    aws.reply = {
      status: 400,
      headers: { 'x-amzn-errortype': 'ResourceNotFoundException:http://internal' },
      json: { message: 'no stream' },
    };
    await expect(put(input)).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'no stream' });
    aws.reply = { status: 400, json: { __type: 'com.amazonaws.kinesis#InvalidArgumentException', message: 'bad' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'InvalidArgumentException' });
    aws.seen = [];
    aws.reply = { status: 400, json: { __type: 'ProvisionedThroughputExceededException', message: 'busy' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(aws.seen).toHaveLength(1);
  });
});

describe('Kinesis client timeouts', () => {
  // A server that accepts the request and never answers: only the request timeout ends the call.
  const stalled: ServerResponse[] = [];
  const server = createServer((_req, res) => void stalled.push(res));
  let endpoint = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const res of stalled) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
  });

  it('has explicit connection and request timeouts by default', () => {
    expect(kinesisTimeouts.connectionTimeoutMs).toBeGreaterThan(0);
    expect(kinesisTimeouts.requestTimeoutMs).toBeGreaterThan(0);
  });

  it('fails a call the service never answers with a timeout error instead of waiting for the function timeout', async () => {
    const put = createKinesisPut({ region: 'eu-west-1', endpoint, credentials, requestTimeoutMs: 200 });
    await expect(put(input)).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
