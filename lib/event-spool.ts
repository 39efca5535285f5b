import { Duration } from 'aws-cdk-lib';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { envNames } from '@shared/config/config';
import { redriveConsumer } from '@shared/routes/consumer-specs';
import type { ServiceAlarms } from './service-alarms';
import { ServiceFunction } from './service-function';

/** How long the redrive keeps trying one message before SQS moves it to the dead-letter queue. */
export const SPOOL_VISIBILITY_TIMEOUT = Duration.minutes(5);
export const SPOOL_MAX_RECEIVES = 288; // 288 x 5 min = 24 h of event stream outage

export interface EventSpoolProps {
  stream: IStream;
  /** The redrive reads the tombstones of erased workspaces there (and only those). */
  table: ITableV2;
  alarms: ServiceAlarms;
}

/**
 * The durable fallback of the event sink: an SQS queue (encrypted, TLS only, 14 days) that the
 * Lambdas spool undelivered events to, a redrive Lambda on it (partial batch failures: only the
 * messages the event stream still rejects return, after 5 minutes), and a dead-letter queue after 24 h
 * of failures, drained by `admin replay-events --dead-letter`. Alarms: the oldest spooled
 * message older than 15 minutes (the stream has been down that long), anything in the DLQ.
 * The redrive drops the events of erased workspaces: it may GetItem their tombstones
 * (`ERASED#` keys, shared/tenancy/erased-workspaces.ts) and nothing else of the table.
 */
export class EventSpool extends Construct {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly redrive: ServiceFunction;

  constructor(scope: Construct, id: string, props: EventSpoolProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      visibilityTimeout: SPOOL_VISIBILITY_TIMEOUT,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: SPOOL_MAX_RECEIVES },
    });
    this.redrive = new ServiceFunction(scope, 'EventsRedrive', { fn: redriveConsumer })
      .bindEvents(props.stream)
      .bindTable(props.table);
    this.redrive.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true }));
    props.alarms.watchFunction('EventsRedrive', this.redrive);
    props.alarms.alarmOn(
      'SpooledEventsAge',
      this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      'Events the event stream rejected have waited in the spool for more than 15 minutes (the stream still failing?)',
      900,
    );
    props.alarms.alarmOn(
      'SpooledEventsDeadLetters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      'Spooled events gave up after 24 h of redrive; replay them with `admin replay-events --dead-letter`',
    );
  }

  /** A function that sends events may spool them: SendMessage on the queue, and its URL. */
  bindSpool(fn: ServiceFunction): void {
    this.queue.grantSendMessages(fn);
    fn.addEnvironment(envNames.eventsSpoolQueueUrl, this.queue.queueUrl);
  }
}
