import {
  KinesisClient,
  PutRecordsCommand,
  type PutRecordsCommandInput,
  type PutRecordsCommandOutput,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';

/** PutRecords input and output as the Kinesis client types them. */
export type PutRecordsInput = Required<Pick<PutRecordsCommandInput, 'StreamName'>> & {
  Records: Array<{ Data: Uint8Array; PartitionKey: string }>;
};
export type PutRecordsOutput = Pick<PutRecordsCommandOutput, 'FailedRecordCount' | 'Records'>;

/**
 * One PutRecords call; an error's `name` is the Kinesis error type (the SDK's service exceptions).
 * An aborted `abortSignal` cancels the call (the request is destroyed) and it rejects with `AbortError`.
 */
export type PutRecords = (input: PutRecordsInput, options?: { abortSignal?: AbortSignal }) => Promise<PutRecordsOutput>;

/** Timeouts of the Kinesis client: a stalled connection or answer fails the attempt, and the sink retries the records. */
export const kinesisTimeouts = {
  /** TCP + TLS set-up. */
  connectionTimeoutMs: 1000,
  /** The whole request and response. */
  requestTimeoutMs: 2000,
} as const;

export interface KinesisPutOptions {
  region: string;
  /** Default: the partition's Kinesis endpoint, resolved by the SDK (tests: a loopback server). */
  endpoint?: string;
  /** Default: the SDK's credential chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/**
 * Kinesis Data Streams PutRecords through `@aws-sdk/client-kinesis` (endpoints for every
 * partition, clock-skew correction, the service's error types). One attempt per call
 * (`maxAttempts: 1`): the sink (stream-sink.ts) retries per record, so the SDK retrying the whole
 * batch would resend records that were already accepted.
 */
export const createKinesisPut = (options: KinesisPutOptions): PutRecords => {
  const client = new KinesisClient({
    region: options.region,
    maxAttempts: 1,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    requestHandler: new NodeHttpHandler({
      connectionTimeout: options.connectionTimeoutMs ?? kinesisTimeouts.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? kinesisTimeouts.requestTimeoutMs,
      // Without it the handler only logs a warning when the request timeout passes and keeps waiting.
      throwOnRequestTimeout: true,
    }),
  });
  return async (input, callOptions) => {
    const { FailedRecordCount, Records } = await client.send(new PutRecordsCommand(input), {
      abortSignal: callOptions?.abortSignal,
    });
    return { FailedRecordCount, Records };
  };
};
