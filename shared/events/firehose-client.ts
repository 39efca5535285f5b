import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { Sha256 } from '@smithy/core/checksum';
import { HttpRequest } from '@smithy/core/transport';
import { NodeHttpHandler, streamCollector } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';

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

class FirehoseError extends Error {
  constructor(name: string, message: string, readonly statusCode: number) {
    super(message);
    this.name = name;
  }
}

/**
 * Firehose PutRecordBatch with the SDK's own building blocks, already in every bundle for the
 * DynamoDB client (SigV4 signer, credential chain, keep-alive Node HTTP handler), instead of
 * @aws-sdk/client-firehose: the client package adds about 13 KiB to the redirect and click bundles,
 * for one operation (docs/benchmarks.md). One attempt per call: the sink retries per record.
 */
export const createFirehosePut = (options: FirehosePutOptions): PutRecordBatch => {
  const endpoint = new URL(options.endpoint ?? `https://firehose.${options.region}.amazonaws.com`);
  const signer = new SignatureV4({
    service: 'firehose',
    region: options.region,
    credentials: options.credentials ?? defaultProvider(),
    sha256: Sha256,
  });
  const http = new NodeHttpHandler({ requestTimeout: options.requestTimeoutMs ?? 5000 });
  return async (input) => {
    const body = JSON.stringify({
      DeliveryStreamName: input.DeliveryStreamName,
      Records: input.Records.map((r) => ({ Data: Buffer.from(r.Data).toString('base64') })),
    });
    const request = new HttpRequest({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      port: endpoint.port ? Number(endpoint.port) : undefined,
      path: '/',
      headers: {
        host: endpoint.host,
        'content-type': 'application/x-amz-json-1.1',
        'x-amz-target': 'Firehose_20150804.PutRecordBatch',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
    const signed = await signer.sign(request);
    const { response } = await http.handle(signed as HttpRequest);
    const text = Buffer.from(await streamCollector(response.body)).toString('utf8');
    const parsed = (text ? JSON.parse(text) : {}) as PutRecordBatchOutput & { __type?: string; message?: string; Message?: string };
    if (response.statusCode >= 300) {
      // `__type` may carry a namespace ("com.amazonaws...#Name"); the header wins when present.
      const header = response.headers['x-amzn-errortype'] ?? response.headers['X-Amzn-ErrorType'];
      const type = (header ?? parsed.__type ?? (response.statusCode >= 500 ? 'ServiceUnavailableException' : 'UnknownError')).split(':')[0]!.split('#').pop()!;
      throw new FirehoseError(type, parsed.message ?? parsed.Message ?? `Firehose answered ${response.statusCode}`, response.statusCode);
    }
    return parsed;
  };
};
