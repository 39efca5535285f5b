import { request } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { EventRecord } from '@shared/events/event-record';
import { decodeStoredText, isRawObjectName } from '@shared/analytics/lake/raw-objects';

export interface EdgeResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request to the local edge with a chosen Host header (fetch cannot set it). */
export const edgeRequest = (
  edgeUrl: string,
  options: { host: string; path: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<EdgeResponse> =>
  new Promise((resolve, reject) => {
    const url = new URL(edgeUrl);
    const req = request(
      {
        hostname: url.hostname,
        port: url.port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: { host: `${options.host}:${url.port}`, ...options.headers },
        // A socket-idle guard, not a latency bound: a request may wait for a local invocation slot
        // behind hundreds of others on a loaded machine (shared/local/local-invocations.ts); the
        // test's own timeout bounds the rest. (fetch, in http-client.ts, waits as long.)
        timeout: 90_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('edge request timed out')));
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });

/** Every event in the local lake (newline-delimited JSON objects under `events/`: gzip `.json.gz`, older `.json`). */
export const readLakeEvents = async (lakeDir = process.env.LOCAL_LAKE_DIR!): Promise<EventRecord[]> => {
  const files = await readdir(path.join(lakeDir, 'events'), { recursive: true }).catch(() => [] as string[]);
  const events: EventRecord[] = [];
  for (const file of files.filter((f) => isRawObjectName(path.basename(f)))) {
    const text = decodeStoredText(await readFile(path.join(lakeDir, 'events', file)));
    for (const line of text.split('\n')) if (line.trim()) events.push(JSON.parse(line) as EventRecord);
  }
  return events;
};
