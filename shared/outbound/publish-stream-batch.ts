import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { log } from '@shared/util/logger';
import { publishOutbound } from './publish-events';
import { streamWorkOf, type StreamWork } from './stream-events';

/**
 * One batch of the table's stream. Published as a whole; if that fails, the batch is reported
 * failed from its first record, so the stream retries it (events keep their ids: at least once).
 */
export const publishStreamBatch = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const work = event.Records.map(streamWorkOf).filter((w): w is StreamWork => w !== undefined);
  if (work.length === 0) return { batchItemFailures: [] };
  try {
    await publishOutbound(work);
    return { batchItemFailures: [] };
  } catch (error) {
    log('error', 'outbound publish failed; the batch will be retried', {
      error: (error as Error).message,
      records: event.Records.length,
    });
    const first = event.Records[0]?.dynamodb?.SequenceNumber;
    return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
  }
};
