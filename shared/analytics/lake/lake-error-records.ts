import type { EventRecord } from '@shared/events/event-record';
import { decodeStoredText } from './raw-objects';

/**
 * The events inside an object Firehose wrote under errors/: one JSON document per line
 * (`errorCode`, `errorMessage`, `rawData` = the record's bytes in base64, ...). Our records are
 * newline-terminated event lines, so each decoded record yields one or more events. Lines that
 * are not error documents, or records that are not event JSON, are counted, never thrown. The
 * object may be gzip (the delivery stream compresses what it writes): its bytes are gunzipped first.
 */
export const eventsFromErrorObject = (stored: string | Uint8Array): { events: EventRecord[]; unreadable: number } => {
  const text = typeof stored === 'string' ? stored : decodeStoredText(stored);
  const events: EventRecord[] = [];
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const document = JSON.parse(line) as { rawData?: unknown };
      if (typeof document.rawData !== 'string') throw new Error('no rawData');
      for (const eventLine of Buffer.from(document.rawData, 'base64').toString('utf8').split('\n')) {
        if (!eventLine.trim()) continue;
        const event = JSON.parse(eventLine) as EventRecord;
        if (
          typeof event.eventId !== 'string' ||
          typeof event.workspaceId !== 'string' ||
          typeof event.timestamp !== 'string'
        )
          throw new Error('not an event');
        events.push(event);
      }
    } catch {
      unreadable += 1;
    }
  }
  return { events, unreadable };
};
