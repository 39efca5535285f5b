import { FirehoseClient, PutRecordBatchCommand, type PutRecordBatchCommandInput, type PutRecordBatchCommandOutput } from '@aws-sdk/client-firehose';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** PutRecordBatch input and output as the Firehose client types them. */
export type PutRecordBatchInput = Required<Pick<PutRecordBatchCommandInput, 'DeliveryStreamName'>> & { Records: Array<{ Data: Uint8Array }> };
export type PutRecordBatchOutput = Pick<PutRecordBatchCommandOutput, 'FailedPutCount' | 'Encrypted' | 'RequestResponses'>;

/** One PutRecordBatch call; an error's `name` is the Firehose error type (the SDK's service exceptions). */
export type PutRecordBatch = (input: PutRecordBatchInput) => Promise<PutRecordBatchOutput>;

/** Timeouts of the Firehose client: a stalled connection or answer fails the attempt, and the sink retries the records. */
export const firehoseTimeouts = {
  /** TCP + TLS set-up. */
  connectionTimeoutMs: 1000,
  /** The whole request and response. */
  requestTimeoutMs: 2000,
} as const;

export interface FirehosePutOptions {
  region: string;
  /** Default: the partition's Firehose endpoint, resolved by the SDK (tests: a loopback server). */
  endpoint?: string;
  /** Default: the SDK's credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/**
 * Firehose PutRecordBatch through `@aws-sdk/client-firehose` (endpoints for every partition,
 * clock-skew correction, the service's error types). One attempt per call (`maxAttempts: 1`):
 * the sink (firehose-sink.ts) retries per record, so the SDK retrying the whole batch would
 * resend records that were already delivered.
 */
export const createFirehosePut = (options: FirehosePutOptions): PutRecordBatch => {
  const client = new FirehoseClient({
    region: options.region,
    maxAttempts: 1,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    requestHandler: new NodeHttpHandler({
      connectionTimeout: options.connectionTimeoutMs ?? firehoseTimeouts.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? firehoseTimeouts.requestTimeoutMs,
      // Without it the handler only logs a warning when the request timeout passes and keeps waiting.
      throwOnRequestTimeout: true,
    }),
  });
  return async (input) => {
    const { FailedPutCount, Encrypted, RequestResponses } = await client.send(new PutRecordBatchCommand(input));
    return { FailedPutCount, Encrypted, RequestResponses };
  };
};
