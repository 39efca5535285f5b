import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { ErasedCheck } from '@shared/tenancy/erased-workspaces';
import type { StreamSink } from './stream-sink';
import type { ReplayPacer } from './paced-replay';
import { redriveSpooledMessages } from './redrive-events';
import { required } from '@shared/util/required';

export interface ReplayTotals {
  messages: number;
  messagesReplayed: number;
  messagesLeft: number;
  eventsReplayed: number;
  /** Events of erased workspaces dropped (erased-workspaces.ts). */
  eventsDropped: number;
  /** Firehose partition windows the replay used (paced-replay.ts). */
  windows: number;
}

/**
 * `admin replay-events`: drains a spool queue (or its dead-letter queue) by hand, ten messages
 * at a time, re-sending each message's events to the event stream and deleting it once all are
 * delivered; a message the stream still rejects is made visible again and left on the queue.
 * Stops when the queue answers empty or after `maxMessages`. Spooled events may be hours old (the
 * dead-letter queue's are at least a day): the sends are paced (`pacer`) so the old hours they
 * open stay under Firehose's active-partition limit, and events of erased workspaces are dropped
 * (`erased`).
 */
export const replaySpool = async (options: {
  sqs: SQSClient;
  queueUrl: string;
  sink: StreamSink;
  maxMessages?: number;
  pacer?: ReplayPacer;
  erased?: ErasedCheck;
  onProgress?: (totals: ReplayTotals) => void;
}): Promise<ReplayTotals> => {
  const totals: ReplayTotals = {
    messages: 0,
    messagesReplayed: 0,
    messagesLeft: 0,
    eventsReplayed: 0,
    eventsDropped: 0,
    windows: 0,
  };
  const max = options.maxMessages ?? Number.POSITIVE_INFINITY;
  while (totals.messages < max) {
    const out = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 120,
      }),
    );
    const messages = out.Messages ?? [];
    if (messages.length === 0) break;
    totals.messages += messages.length;
    const result = await redriveSpooledMessages(
      messages.map((m) => ({ id: required(m.MessageId, 'the MessageId of a received message'), body: m.Body ?? '' })),
      options.sink,
      { pacer: options.pacer, erased: options.erased },
    );
    const handle = (ids: string[]) =>
      messages
        .filter((m) => m.MessageId !== undefined && ids.includes(m.MessageId))
        .map((m, i) => ({
          Id: String(i),
          ReceiptHandle: required(m.ReceiptHandle, 'the ReceiptHandle of a received message'),
        }));
    if (result.delivered.length)
      await options.sqs.send(
        new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: handle(result.delivered) }),
      );
    if (result.failed.length) {
      await options.sqs.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: handle(result.failed).map((e) => ({ ...e, VisibilityTimeout: 0 })),
        }),
      );
    }
    totals.messagesReplayed += result.delivered.length;
    totals.messagesLeft += result.failed.length;
    totals.eventsReplayed += result.eventsReplayed;
    totals.eventsDropped += result.eventsDropped;
    totals.windows = options.pacer?.windows ?? 0;
    options.onProgress?.(totals);
    // The stream still failing: stop rather than spin on the same messages.
    if (result.failed.length) break;
  }
  return totals;
};
