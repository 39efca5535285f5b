import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { describe, expect, it } from 'vitest';
import { awsLoopback, loopbackCredentials } from '@test/support/aws-loopback';
import { createFirehosePut } from '@shared/events/firehose-client';

const aws = awsLoopback();
const credentials = loopbackCredentials;


const input = { DeliveryStreamName: 'events', Records: [{ Data: Buffer.from('{"a":1}\n') }, { Data: Buffer.from('{"b":"é"}\n') }] };

describe('createFirehosePut (PutRecordBatch without the Firehose client package)', () => {
  it('sends what the SDK client sends: target, content type, JSON body with base64 records; SigV4 for firehose', async () => {
    aws.reply = { status: 200, json: { FailedPutCount: 0, Encrypted: false, RequestResponses: [{ RecordId: 'r1' }, { RecordId: 'r2' }] } };
    aws.seen = [];
    const put = createFirehosePut({ region: 'eu-west-1', endpoint: aws.endpoint, credentials });
    const ours = await put(input);
    const sdk = new FirehoseClient({ region: 'eu-west-1', endpoint: aws.endpoint, credentials, maxAttempts: 1 });
    const theirs = await sdk.send(new PutRecordBatchCommand(input));
    sdk.destroy();
    const [mine, reference] = aws.seen;
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
    const put = createFirehosePut({ region: 'eu-west-1', endpoint: aws.endpoint, credentials });
    aws.reply = { status: 400, headers: { 'x-amzn-errortype': 'ResourceNotFoundException:http://internal' }, json: { message: 'no stream' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'ResourceNotFoundException', message: 'no stream' });
    aws.reply = { status: 400, json: { __type: 'com.amazonaws.firehose#InvalidArgumentException', message: 'bad' } };
    await expect(put(input)).rejects.toMatchObject({ name: 'InvalidArgumentException' });
    aws.reply = { status: 503, json: {} };
    await expect(put(input)).rejects.toMatchObject({ name: 'ServiceUnavailableException' });
  });
});
