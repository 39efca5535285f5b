import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFirehosePut } from '@shared/events/firehose-client';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let seen: Seen[] = [];
let reply: { status: number; headers?: Record<string, string>; json: unknown } = { status: 200, json: {} };
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(reply.status, { 'content-type': 'application/x-amz-json-1.1', ...reply.headers });
    res.end(JSON.stringify(reply.json));
  });
});
let endpoint = '';
const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const input = { DeliveryStreamName: 'events', Records: [{ Data: Buffer.from('{"a":1}\n') }, { Data: Buffer.from('{"b":"é"}\n') }] };

describe('createFirehosePut (PutRecordBatch without the Firehose client package)', () => {
  it('sends what the SDK client sends: target, content type, JSON body with base64 records; SigV4 for firehose', async () => {
    reply = { status: 200, json: { FailedPutCount: 0, Encrypted: false, RequestResponses: [{ RecordId: 'r1' }, { RecordId: 'r2' }] } };
    seen = [];
    const put = createFirehosePut({ region: 'eu-west-1', endpoint, credentials });
    const ours = await put(input);
    const sdk = new FirehoseClient({ region: 'eu-west-1', endpoint, credentials, maxAttempts: 1 });
    const theirs = await sdk.send(new PutRecordBatchCommand(input));
    sdk.destroy();
    const [mine, reference] = seen;
    expect(mine!.method).toBe(reference!.method);
    expect(mine!.url).toBe(reference!.url);
    expect(JSON.parse(mine!.body)).toEqual(JSON.parse(reference!.body));
    for (const name of ['content-type', 'x-amz-target']) expect(mine!.headers[name]).toBe(reference!.headers[name]);
    expect(mine!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/firehose\/aws4_request, SignedHeaders=[^,]*host;[^,]*x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/,
    );
    expect(ours).toEqual({ FailedPutCount: theirs.FailedPutCount, Encrypted: theirs.Encrypted, RequestResponses: theirs.RequestResponses });
  });

  it('names errors by their Firehose type, as the SDK does (the sink tells permanent from retryable by name)', async () => {
    const put = createFirehosePut({ region: 'eu-west-1', endpoint, credentials });
    reply = { status: 400, headers: { 'x-amzn-errortype': 'ResourceNotFoundException:http://internal' }, json: { message: 'no stream' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'no stream' });
    reply = { status: 400, json: { __type: 'com.amazonaws.firehose#InvalidArgumentException', message: 'bad' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'InvalidArgumentException' });
    reply = { status: 503, json: {} };
    await expect(put(input)).rejects.toMatchObject({ name: 'ServiceUnavailableException' });
  });
});
