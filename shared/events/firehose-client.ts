import { createAwsJsonCall } from '@shared/aws/aws-json-call';

/** PutRecordBatch input and output: the fields the event sink uses (Firehose API, JSON 1.1). */
export interface PutRecordBatchInput {
  DeliveryStreamName: string;
  Records: Array<{ Data: Uint8Array }>;
}

export interface PutRecordBatchOutput {
  FailedPutCount?: number;
  Encrypted?: boolean;
  RequestResponses?: Array<{ RecordId?: string; ErrorCode?: string; ErrorMessage?: string }>;
}

/** One PutRecordBatch call; an error's `name` is the Firehose error type (as the SDK names it). */
export type PutRecordBatch = (input: PutRecordBatchInput) => Promise<PutRecordBatchOutput>;

export interface FirehosePutOptions {
  region: string;
  /** Default: https://firehose.<region>.amazonaws.com (tests: a loopback server). */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  requestTimeoutMs?: number;
}

/**
 * Firehose PutRecordBatch over the AWS JSON 1.1 caller (shared/aws/aws-json-call.ts: the SDK's
 * SigV4 signer, credential chain and keep-alive Node HTTP handler, already in every bundle for the
 * DynamoDB client) instead of @aws-sdk/client-firehose: the client package adds about 13 KiB to
 * the redirect and click bundles, for one operation (docs/benchmarks.md). One attempt per call:
 * the sink retries per record.
 */
export const createFirehosePut = (options: FirehosePutOptions): PutRecordBatch => {
  const call = createAwsJsonCall({ ...options, service: 'firehose', targetPrefix: 'Firehose_20150804' });
  return async (input) =>
    (await call('PutRecordBatch', {
      DeliveryStreamName: input.DeliveryStreamName,
      Records: input.Records.map((r) => ({ Data: Buffer.from(r.Data).toString('base64') })),
    })) as PutRecordBatchOutput;
};
