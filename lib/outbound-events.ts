import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Archive, EventBus } from 'aws-cdk-lib/aws-events';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { EventSourceMapping, FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONSUMER_MAX_RECORD_AGE_HOURS } from '@shared/events/consumer-retention';
import { streamedItemSortKeys } from '@shared/db/keys';
import { outboundEnvNames } from '@shared/outbound/outbound-config';
import { MAX_DELIVERY_ATTEMPTS } from '@shared/outbound/retry-schedule';
import { outboundPublisherConsumer, webhookDeliveryConsumer } from '@shared/routes/consumer-specs';
import { ServiceFunction } from './service-function';
import type { ServiceAlarms } from './service-alarms';
import { StreamFailures } from './stream-failures';

export interface OutboundEventsProps {
  table: ITableV2;
  alarms: ServiceAlarms;
}

/** Visibility of a received delivery batch: six times the delivery function's timeout, as AWS advises. */
const DELIVERY_TIMEOUT = Duration.seconds(30);

/**
 * Outbound events (docs/events.md): the table's stream -> a publisher function -> the stack's
 * EventBridge bus (operators' rules) and, per subscribed webhook endpoint, the delivery queue ->
 * the delivery function (Standard Webhooks, partial batch failures, exponential backoff by
 * visibility timeout for about 27.6 hours) -> after the last attempt, the dead-letter queue,
 * which alarms.
 */
export class OutboundEvents extends Construct {
  readonly bus: EventBus;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** The publisher's failed batches, kept whole (S3). */
  readonly publishFailures: StreamFailures;
  readonly publisher: ServiceFunction;
  readonly delivery: ServiceFunction;

  constructor(scope: Construct, id: string, props: OutboundEventsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const { table } = props;

    this.bus = new EventBus(this, 'Bus', { eventBusName: `${stack.stackName}-events` });
    new Archive(this, 'Archive', {
      sourceEventBus: this.bus,
      eventPattern: { source: [stack.stackName] },
      retention: Duration.days(30),
      description: 'Every outbound event of the stack, replayable by operators for 30 days',
    });

    this.deadLetterQueue = new Queue(this, 'WebhookDeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new Queue(this, 'WebhookDeliveries', {
      visibilityTimeout: Duration.seconds(DELIVERY_TIMEOUT.toSeconds() * 6),
      // Longer than the whole retry schedule (~27.6 h).
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: MAX_DELIVERY_ATTEMPTS },
    });
    this.publishFailures = new StreamFailures(this, 'PublishFailures', { consumer: 'outbound publisher' });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself a dead-letter queue (it alarms on any message).',
    });

    // Publisher: reads the stream; Queries webhook endpoints; writes the event log; puts on the bus; sends to the queue.
    this.publisher = new ServiceFunction(this, 'Publisher', {
      fn: outboundPublisherConsumer,
      timeout: Duration.seconds(60),
    });
    table.grantStreamRead(this.publisher);
    // Query on WEBHOOKS#, BatchWriteItem/PutItem on EVENTLOG#, as its spec declares (functionTableAccess).
    this.publisher.bindTable(table);
    this.bus.grantPutEventsTo(this.publisher);
    this.queue.grantSendMessages(this.publisher);
    this.publisher.addEnvironment(outboundEnvNames.busName, this.bus.eventBusName);
    this.publisher.addEnvironment(outboundEnvNames.eventSource, stack.stackName);
    this.publisher.addEnvironment(outboundEnvNames.queueUrl, this.queue.queueUrl);
    const streamArn = table.tableStreamArn;
    if (streamArn === undefined) throw new Error('the outbound publisher needs the table stream turned on');
    new EventSourceMapping(this, 'StreamMapping', {
      target: this.publisher,
      eventSourceArn: streamArn,
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      retryAttempts: 20,
      // Given up well before the stream drops the records (a DynamoDB stream keeps them 24 h),
      // and kept whole: the S3 destination gets the batch's records, not only their range.
      maxRecordAge: Duration.hours(CONSUMER_MAX_RECORD_AGE_HOURS),
      onFailure: this.publishFailures.destination(),
      // Only writes of the items that are outbound events (links, the outbox, replay requests); not TTL removals.
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.or('INSERT', 'MODIFY'),
          dynamodb: { Keys: { sk: { S: FilterRule.or(...streamedItemSortKeys) } } },
        }),
      ],
    });

    // Delivery: reads webhook endpoints and may only mark one disabled (410); consumes the queue.
    this.delivery = new ServiceFunction(this, 'Delivery', {
      fn: webhookDeliveryConsumer,
      timeout: DELIVERY_TIMEOUT,
    });
    // GetItem on WEBHOOKS#, UpdateItem of only enabled/disabledAt/disabledReason there (a 410),
    // and its delivery markers (Put/Update/Delete on WEBHOOKSENT#), as its row declares.
    this.delivery.bindTable(table);
    this.delivery.addEnvironment(outboundEnvNames.queueUrl, this.queue.queueUrl);
    this.delivery.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 20 }),
    );

    props.alarms.watchFunction('OutboundPublisher', this.publisher);
    props.alarms.watchFunction('WebhookDelivery', this.delivery);
    props.alarms.alarmOn(
      'WebhookDeadLetters',
      this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      'Webhook deliveries that failed every attempt (~27.6 h) are in the dead-letter queue',
    );
    this.publishFailures.watch(
      props.alarms,
      'OutboundPublishFailures',
      'Table stream batches the outbound publisher gave up on, kept whole: events not published until `admin replay-stream-failures` (docs/event-stream.md)',
    );
    props.alarms.alarmOn(
      'OutboundStreamAge',
      this.publisher.metric('IteratorAge', { period: Duration.minutes(5), statistic: 'Maximum' }),
      'Outbound events are more than 5 minutes behind the table',
      300_000,
    );
  }
}
