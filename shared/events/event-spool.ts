import type { SQSClient } from '@aws-sdk/client-sqs';
import type { EventRecord } from './event-record';
import { sendInBatches } from '@shared/util/batch-send';
import { utf8Bytes } from '@shared/util/byte-batches';

/**
 * Where events go when the event stream still rejects them after the sink's retries: a durable
 * queue (SQS deployed) from which the redrive Lambda re-sends them when the stream recovers, and
 * from which `admin replay-events` re-sends them by hand. Neither the stream nor Firehose
 * de-duplicates, so a re-sent event may reach the lake twice; analytics count each eventId once.
 */
export interface EventSpool {
  /** An aborted `signal` (the caller's budget) cancels the call in flight and stops. */
  spool(events: EventRecord[], reason: string, signal?: AbortSignal): Promise<void>;
}

/** One queue message: a group of undelivered events and why they were not delivered. */
export interface SpoolMessage {
  reason: string;
  spooledAt: string;
  events: EventRecord[];
}

/** SQS takes at most 256 KiB per message and per batch call, and 10 messages per batch. */
const MAX_MESSAGE_BYTES = 200 * 1024;
const MAX_BATCH_BYTES = 240 * 1024;
const MAX_BATCH_MESSAGES = 10;

/** Groups events into message bodies under the SQS size limit, in order. */
export const spoolMessages = (events: EventRecord[], reason: string, now = new Date()): string[] => {
  const bodies: string[] = [];
  let group: EventRecord[] = [];
  let bytes = 0;
  const flush = () => {
    if (group.length)
      bodies.push(JSON.stringify({ reason, spooledAt: now.toISOString(), events: group } satisfies SpoolMessage));
    group = [];
    bytes = 0;
  };
  for (const event of events) {
    const size = Buffer.byteLength(JSON.stringify(event)) + 1;
    if (bytes + size > MAX_MESSAGE_BYTES) flush();
    group.push(event);
    bytes += size;
  }
  flush();
  return bodies;
};

export const parseSpoolMessage = (body: string): SpoolMessage => {
  const parsed = JSON.parse(body) as Partial<SpoolMessage> | null;
  if (!parsed || !Array.isArray(parsed.events)) throw new Error('not a spooled-events message');
  return parsed as SpoolMessage;
};

/**
 * The deployed spool: SendMessageBatch with the official SQS client (loaded on first use, so
 * the redirect's cold start does not pay for it while the event stream is healthy). Entries SQS refuses
 * are retried once, then the call throws (the sink then logs the events in full).
 */
export const createSqsSpool = (options: {
  queueUrl: string;
  region: string;
  endpoint?: string;
  client?: SQSClient;
}): EventSpool => {
  let client: SQSClient | undefined = options.client;
  const sqs = async () => {
    if (!client) {
      const { SQSClient } = await import('@aws-sdk/client-sqs');
      client = new SQSClient({ region: options.region, ...(options.endpoint ? { endpoint: options.endpoint } : {}) });
    }
    return client;
  };
  return {
    async spool(events, reason, signal) {
      const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
      const sqsClient = await sqs();
      let lastCodes = '';
      await sendInBatches(spoolMessages(events, reason), {
        limits: {
          api: 'SQS SendMessageBatch (event spool)',
          maxEntries: MAX_BATCH_MESSAGES,
          maxBytes: MAX_BATCH_BYTES,
        },
        bytes: utf8Bytes,
        // Refused entries are sent again once, at once, then the call throws.
        maxAttempts: 2,
        delayMs: () => 0,
        sleep: () => Promise.resolve(),
        exhausted: (left) => new Error(`SQS refused ${left.length} spool messages: ${lastCodes}`),
        send: async (bodies) => {
          const out = await sqsClient.send(
            new SendMessageBatchCommand({
              QueueUrl: options.queueUrl,
              Entries: bodies.map((body, i) => ({ Id: String(i), MessageBody: body })),
            }),
            { abortSignal: signal },
          );
          const failed = new Set((out.Failed ?? []).map((f) => f.Id));
          lastCodes = (out.Failed ?? []).map((f) => f.Code).join(',');
          return bodies.filter((_, i) => failed.has(String(i)));
        },
      });
    },
  };
};
