/**
 * admin replay-events: re-sends events spooled after event stream failures (the redrive, by hand),
 * paced under Firehose's active-partition limit like `replay-lake-errors` (paced-replay.ts), and
 * without the events of erased workspaces.
 */
import type { Command } from 'commander';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createKinesisPut } from '@shared/events/kinesis-client';
import { createStreamSink } from '@shared/events/stream-sink';
import { createReplayPacer, partitionLimitFromEnv } from '@shared/events/paced-replay';
import { replaySpool } from '@shared/events/replay-spool';
import { createErasedCheck } from '@shared/tenancy/erased-workspaces';
import { AdminError, invalidInput } from '@shared/admin/admin-error';
import type { AdminTargetOf } from './admin-target';
import { printResult, progressBar, type JsonOption } from './output';

export const registerEventCommands = (program: Command, adminTarget: AdminTargetOf): void => {
  program
    .command('replay-events')
    .description(
      "re-send events the event stream rejected (spooled to SQS) to the stream now, paced under Firehose's active-partition limit (FIREHOSE_ACTIVE_PARTITION_LIMIT, default 500); delivered messages are deleted, failing ones stay; events of erased workspaces are dropped",
    )
    .option(
      '--queue-url <url>',
      'the spool queue (default: EVENTS_SPOOL_QUEUE_URL; with --dead-letter: EVENTS_SPOOL_DLQ_URL)',
    )
    .option('--dead-letter', 'drain the dead-letter queue (messages the redrive gave up on after 24 h)')
    .option('--stream <name>', 'the Kinesis event stream (default: EVENTS_STREAM_NAME)')
    .option('--max <n>', 'stop after this many messages')
    .option('--json', 'print one line of JSON')
    .action(
      async (options: JsonOption & { queueUrl?: string; deadLetter?: boolean; stream?: string; max?: string }) => {
        const queueUrl =
          options.queueUrl ??
          (options.deadLetter ? process.env.EVENTS_SPOOL_DLQ_URL : process.env.EVENTS_SPOOL_QUEUE_URL);
        const streamName = options.stream ?? process.env.EVENTS_STREAM_NAME;
        if (!queueUrl || !streamName) {
          throw new AdminError(
            'not_configured',
            'Give the spool queue and the stream (--queue-url / EVENTS_SPOOL_QUEUE_URL or EVENTS_SPOOL_DLQ_URL, --stream / EVENTS_STREAM_NAME: the stack outputs); the local stack writes events straight to its lake and has nothing to replay.',
          );
        }
        if (!URL.canParse(queueUrl)) throw invalidInput(`The queue URL must be a URL (got ${queueUrl})`);
        const max = options.max === undefined ? undefined : /^\d+$/.test(options.max) ? Number(options.max) : 0;
        if (max !== undefined && !(Number.isSafeInteger(max) && max > 0))
          throw invalidInput(`--max must be a positive whole number (got ${options.max ?? ''})`);
        // The tombstones of erased workspaces are in the table (TABLE_NAME).
        adminTarget();
        const region = process.env.AWS_REGION ?? 'us-east-1';
        const sink = createStreamSink({ putRecords: createKinesisPut({ region }), streamName, maxAttempts: 3 });
        const partitionLimit = partitionLimitFromEnv();
        const bar = progressBar(options, max ?? 0, 'messages');
        let shown = 0;
        const totals = await replaySpool({
          sqs: new SQSClient({ region }),
          queueUrl,
          sink,
          maxMessages: max,
          // Spooled events may be hours or days old: each old hour opens a Firehose partition.
          pacer: createReplayPacer({ partitionLimit }),
          erased: createErasedCheck(),
          onProgress: (t) => {
            bar.increment(t.messages - shown);
            shown = t.messages;
          },
        }).finally(() => {
          bar.stop();
        });
        printResult(
          options,
          { queueUrl, streamName, partitionLimit, ...totals },
          (t) =>
            `${t.messagesReplayed} of ${t.messages} messages replayed (${t.eventsReplayed} events, in ${t.windows} windows of at most the stream's free active partitions of ${t.partitionLimit}; ${t.eventsDropped} of erased workspaces dropped); ${t.messagesLeft} left on the queue${t.messagesLeft ? ' (the stream still failing?)' : ''}.`,
        );
      },
    );
};
