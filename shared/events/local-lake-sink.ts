import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { EventRecord } from './event-record';
import { partitionOf, partitionPath } from './event-record';
import type { EventSink } from './event-sink';

/**
 * Local stand-in for Firehose -> S3: newline-delimited JSON under the same partition prefixes
 * (events/workspace_id=/dt=/hour=/), one file per process and partition, appended to.
 */
export const createLocalLakeSink = (lakeDir: string): EventSink => {
  const fileId = `local-${process.pid}-${randomBytes(4).toString('hex')}.json`;
  /** Folders this sink has made: one mkdir per partition, not one per send. */
  const made = new Set<string>();
  return {
    async send(events: EventRecord[]) {
      const groups = new Map<string, EventRecord[]>();
      for (const event of events) {
        const dir = partitionPath(partitionOf(event));
        groups.set(dir, [...(groups.get(dir) ?? []), event]);
      }
      await Promise.all(
        [...groups].map(async ([dir, group]) => {
          const folder = path.join(lakeDir, dir);
          if (!made.has(folder)) {
            await mkdir(folder, { recursive: true });
            made.add(folder);
          }
          await appendFile(path.join(folder, fileId), group.map((e) => JSON.stringify(e)).join('\n') + '\n');
        }),
      );
    },
  };
};
