import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { RAW_FILE_EXTENSION, rawPartitionOf, rawPartitionPath } from '@shared/analytics/lake/lake-layout';
import { encodeRawLines } from '@shared/analytics/lake/raw-objects';
import type { EventRecord } from './event-record';
import type { EventSink } from './event-sink-interface';

/**
 * Local stand-in for Firehose -> S3: newline-delimited JSON, gzip-compressed as Firehose writes it
 * (`.json.gz`, raw-objects.ts), under the raw layout's prefixes (events/shard=/dt=/hour=/, lake-layout.ts). Like Firehose's objects, each file is written once
 * and never appended to (one per send and partition), so compaction may consume and remove a
 * file without racing a writer.
 */
export const createLocalLakeSink = (lakeDir: string): EventSink => {
  const prefix = `local-${process.pid}-${randomBytes(4).toString('hex')}`;
  let sequence = 0;
  /** Folders this sink has made: one mkdir per partition, not one per send. */
  const made = new Set<string>();
  return {
    async send(events: EventRecord[]) {
      const groups = new Map<string, EventRecord[]>();
      for (const event of events) {
        const dir = rawPartitionPath(rawPartitionOf(event));
        groups.set(dir, [...(groups.get(dir) ?? []), event]);
      }
      await Promise.all(
        [...groups].map(async ([dir, group]) => {
          const folder = path.join(lakeDir, dir);
          if (!made.has(folder)) {
            await mkdir(folder, { recursive: true });
            made.add(folder);
          }
          sequence += 1;
          const file = `${prefix}-${Date.now()}-${String(sequence).padStart(8, '0')}${RAW_FILE_EXTENSION}`;
          // Written under a dot name, then renamed: readers never see a half-written file.
          const temp = path.join(folder, `.${file}.tmp`);
          await writeFile(temp, encodeRawLines(group.map((e) => JSON.stringify(e))), { flag: 'wx' });
          await rename(temp, path.join(folder, file));
        }),
      );
    },
  };
};
