import { describe, expect, it } from 'vitest';
import { blankEvent } from '@shared/events/event-record';
import { eventsFromErrorObject } from '@shared/analytics/lake/lake-error-records';

const event = (id: string) =>
  blankEvent({
    eventId: id,
    timestamp: '2026-03-15T10:00:00.000Z',
    eventType: 'click',
    workspaceId: 'ws_A',
    trafficType: 'human',
  });
/** A line of a Firehose error-output object: the record's bytes in base64 with the error. */
const errorLine = (data: string) =>
  JSON.stringify({
    attemptsMade: 1,
    arrivalTimestamp: 1773568800000,
    errorCode: 'DynamicPartitioning.ActivePartitionsLimitExceeded',
    errorMessage: 'limit',
    rawData: Buffer.from(data).toString('base64'),
  });

describe('events from objects Firehose wrote under errors/ (the replay path)', () => {
  it('decodes each record (one or several newline-terminated event lines) and counts what is not an event', () => {
    const text = [
      errorLine(`${JSON.stringify(event('e1'))}\n`),
      errorLine(`${JSON.stringify(event('e2'))}\n${JSON.stringify(event('e3'))}\n`),
      errorLine('not json'),
      '{"no":"rawData"}',
      '',
    ].join('\n');
    const { events, unreadable } = eventsFromErrorObject(text);
    expect(events.map((e) => e.eventId)).toEqual(['e1', 'e2', 'e3']);
    expect(events[0]).toEqual(event('e1'));
    expect(unreadable).toBe(2);
  });
});
