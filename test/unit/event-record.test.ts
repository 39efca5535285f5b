import { describe, expect, it } from 'vitest';
import { blankEvent, eventRecordFields } from '@shared/events/event-record';
import { eventRecordSchema } from '@shared/events/event-record-schema';

describe('event record', () => {
  it('lists the same fields, in the same order, as the schema', () => {
    expect([...eventRecordFields]).toEqual(Object.keys(eventRecordSchema.shape));
  });

  it('builds a blank event the schema accepts, with every field present', () => {
    const event = blankEvent({
      eventId: 'e1',
      timestamp: '2026-01-01T00:00:00.000Z',
      eventType: 'click',
      workspaceId: 'ws',
      trafficType: 'human',
    });
    expect(eventRecordSchema.parse(event)).toEqual(event);
    expect(Object.keys(event).sort()).toEqual([...eventRecordFields].sort());
  });
});
