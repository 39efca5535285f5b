import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { COMPACTED_PREFIX } from './lake-layout';

/**
 * One deployed compaction run at a time, whatever invokes it (the schedule, an operator, a
 * duplicate delivery of an asynchronous invocation): two runs at once would both find an event
 * not compacted yet and both write it. The lock is an object created with S3's conditional
 * writes: `If-None-Match: *` creates it only if absent; a lock past its expiry (its holder
 * timed out or crashed) is taken over with `If-Match: <its ETag>`, so of two runs taking it over
 * exactly one succeeds. A live holder's lock never expires: the TTL is longer than the function's
 * timeout (lib/lake-compaction.ts).
 */
export const COMPACTION_LOCK_KEY = `${COMPACTED_PREFIX}_compaction.lock`;
export const COMPACTION_LOCK_TTL_MS = 16 * 60_000;

export interface CompactionLock {
  release(): Promise<void>;
}

const conditionFailed = (error: unknown) => {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  // 412: the condition does not hold (someone holds or just took the lock); 409: a concurrent conditional write.
  return status === 412 || status === 409;
};

const expiresAtOf = (text: string): string | undefined => {
  try {
    const value = (JSON.parse(text) as { expiresAt?: unknown }).expiresAt;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
};

/** Takes the run lock, or returns undefined when another run holds it. */
export const acquireCompactionLock = async (
  s3: Pick<S3Client, 'send'>,
  bucket: string,
  options: { owner: string; now?: number; ttlMs?: number },
): Promise<CompactionLock | undefined> => {
  const now = options.now ?? Date.now();
  const body = JSON.stringify({
    owner: options.owner,
    acquiredAt: new Date(now).toISOString(),
    expiresAt: new Date(now + (options.ttlMs ?? COMPACTION_LOCK_TTL_MS)).toISOString(),
  });
  const put = (condition: { IfNoneMatch: string } | { IfMatch: string }) =>
    s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: COMPACTION_LOCK_KEY,
        Body: body,
        ContentType: 'application/json',
        ...condition,
      }),
    );
  const lock: CompactionLock = {
    release: async () => {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: COMPACTION_LOCK_KEY }));
    },
  };
  try {
    await put({ IfNoneMatch: '*' });
    return lock;
  } catch (error) {
    if (!conditionFailed(error)) throw error;
  }
  let held: { etag?: string; expiresAt?: string };
  try {
    const current = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: COMPACTION_LOCK_KEY }));
    const text = (await current.Body?.transformToString('utf8')) ?? '';
    held = { etag: current.ETag, expiresAt: expiresAtOf(text) };
  } catch (error) {
    // Released between our two calls: the next run tries again.
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
  // A lock without a readable expiry counts as expired (taken over, still conditionally).
  const expired = !held.expiresAt || !(Date.parse(held.expiresAt) > now);
  if (!expired || !held.etag) return undefined;
  try {
    await put({ IfMatch: held.etag });
    return lock;
  } catch (error) {
    if (conditionFailed(error)) return undefined;
    throw error;
  }
};
