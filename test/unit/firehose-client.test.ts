import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsLoopback, loopbackCredentials as credentials } from '@test/support/aws-loopback';
import { createFirehosePut, firehoseTimeouts } from '@shared/events/firehose-client';

const aws = awsLoopback();

const input = { DeliveryStreamName: 'events', Records: [{ Data: Buffer.from('{"a":1}\n') }, { Data: Buffer.from('{"b":"é"}\n') }] };

describe('createFirehosePut (the Firehose SDK client, one attempt per call)', () => {
  it('puts the batch on the wire as PutRecordBatch: target, JSON 1.1, base64 records, SigV4 for firehose', async () => {
    aws.reply = { status: 200, json: { FailedPutCount: 1, Encrypted: false, RequestResponses: [{ RecordId: 'r1' }, { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'slow down' }] } };
    aws.seen = [];
    const put = createFirehosePut({ region: 'eu-west-1', endpoint: aws.endpoint, credentials });
    const out = await put(input);
    expect(aws.seen).toHaveLength(1);
    const [request] = aws.seen;
    expect(request!.method).toBe('POST');
    expect(request!.headers['x-amz-target']).toBe('Firehose_20150804.PutRecordBatch');
    expect(request!.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(JSON.parse(request!.body)).toEqual({
      DeliveryStreamName: 'events',
      Records: [{ Data: Buffer.from('{"a":1}\n').toString('base64') }, { Data: Buffer.from('{"b":"é"}\n').toString('base64') }],
    });
    expect(request!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/firehose\/aws4_request, /);
    expect(out).toEqual({ FailedPutCount: 1, Encrypted: false, RequestResponses: [{ RecordId: 'r1' }, { ErrorCode: 'ServiceUnavailableException', ErrorMessage: 'slow down' }] });
  });

  it('names errors by their Firehose type and makes one attempt (the sink retries per record)', async () => {
    const put = createFirehosePut({ region: 'eu-west-1', endpoint: aws.endpoint, credentials });
    aws.reply = { status: 400, headers: { 'x-amzn-errortype': 'ResourceNotFoundException:http://internal' }, json: { message: 'no stream' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'no stream' });
    aws.reply = { status: 400, json: { __type: 'com.amazonaws.firehose#InvalidArgumentException', message: 'bad' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'InvalidArgumentException' });
    aws.seen = [];
    aws.reply = { status: 503, json: { __type: 'ServiceUnavailableException', message: 'busy' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'ServiceUnavailableException' });
    expect(aws.seen).toHaveLength(1);
  });
});

describe('Firehose client timeouts', () => {
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
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('has explicit connection and request timeouts by default', () => {
    expect(firehoseTimeouts.connectionTimeoutMs).toBeGreaterThan(0);
    expect(firehoseTimeouts.requestTimeoutMs).toBeGreaterThan(0);
  });

  it('fails a call the service never answers with a timeout error instead of waiting for the function timeout', async () => {
    const put = createFirehosePut({ region: 'eu-west-1', endpoint, credentials, requestTimeoutMs: 200 });
    await expect(put(input)).rejects.toMatchObject({ name: 'TimeoutError' });
  });
});
