/**
 * The event lake as objects (the few operations erasure needs), over the local lake folder or
 * the deployed lake bucket (the official S3 client), so one erasure routine serves both.
 */
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { AdminError } from './admin-error';

export interface LakeStore {
  /** Where it is, for reports: the folder or `s3://bucket`. */
  readonly location: string;
  /** Keys under a prefix (`/`-separated, like S3 keys), in no particular order. */
  list(prefix: string): AsyncIterable<string>;
  /** The same keys with their sizes in bytes (S3's listing carries them: compaction sizes its work from them). */
  listSized(prefix: string): AsyncIterable<{ key: string; size: number }>;
  getText(key: string): Promise<string>;
  /** An object's stored bytes (a raw object is gzip: raw-objects.ts). */
  getBytes(key: string): Promise<Buffer>;
  /** Replaces an object whole: readers see the old object or the new one, never a mix. */
  putText(key: string, body: string): Promise<void>;
  /** putText for stored bytes. */
  putBytes(key: string, body: Uint8Array): Promise<void>;
  delete(keys: string[]): Promise<void>;
}

export const createLocalLakeStore = (lakeDir: string): LakeStore => {
  const walk = async function* (dir: string): AsyncGenerator<string> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) yield* walk(full);
      // Dot files are writes in progress (the local sink, compaction): not objects yet.
      else if (!entry.name.startsWith('.')) yield path.relative(lakeDir, full).split(path.sep).join('/');
    }
  };
  const fileOf = (key: string) => path.join(lakeDir, ...key.split('/'));
  /** Keys starting with `prefix`, as S3 lists them: a prefix may end inside a folder name (`compacted/workspace_id=`). */
  const under = async function* (prefix: string): AsyncGenerator<string> {
    const folder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
    for await (const key of walk(fileOf(folder.replace(/\/$/, '')))) if (key.startsWith(prefix)) yield key;
  };
  const putBytes = async (key: string, body: Uint8Array) => {
    const file = fileOf(key);
    await mkdir(path.dirname(file), { recursive: true });
    const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
    await writeFile(temp, body);
    await rename(temp, file);
  };
  return {
    location: lakeDir,
    list: (prefix) => under(prefix),
    async *listSized(prefix) {
      for await (const key of under(prefix)) {
        const size = await stat(fileOf(key)).then(
          (s) => s.size,
          () => undefined, // removed since it was listed
        );
        if (size !== undefined) yield { key, size };
      }
    },
    getText: (key) => readFile(fileOf(key), 'utf8'),
    getBytes: (key) => readFile(fileOf(key)),
    putText: (key, body) => putBytes(key, Buffer.from(body, 'utf8')),
    putBytes,
    async delete(keys) {
      await Promise.all(keys.map((key) => rm(fileOf(key), { force: true })));
      // Folders exist only locally: remove the ones left empty (a folder name may carry a workspace id).
      const folders = new Set(keys.map((key) => path.dirname(fileOf(key))));
      for (const folder of [...folders].sort((x, y) => y.length - x.length)) {
        for (let dir = folder; dir.startsWith(lakeDir + path.sep); dir = path.dirname(dir)) {
          try {
            await rmdir(dir);
          } catch {
            break; // not empty (or gone)
          }
        }
      }
    },
  };
};

/** DeleteObjects takes at most 1,000 keys per call. */
const DELETE_MAX = 1000;

export const createS3LakeStore = (client: S3Client, bucket: string): LakeStore => ({
  location: `s3://${bucket}`,
  async *list(prefix) {
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) if (object.Key) yield object.Key;
    }
  },
  async *listSized(prefix) {
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) if (object.Key) yield { key: object.Key, size: object.Size ?? 0 };
    }
  },
  async getText(key) {
    const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await out.Body?.transformToString('utf8')) ?? '';
  },
  async getBytes(key) {
    const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from((await out.Body?.transformToByteArray()) ?? new Uint8Array());
  },
  async putText(key, body) {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'application/json' }));
  },
  async putBytes(key, body) {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  },
  async delete(keys) {
    for (let i = 0; i < keys.length; i += DELETE_MAX) {
      const out = await client.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.slice(i, i + DELETE_MAX).map((Key) => ({ Key })), Quiet: true },
        }),
      );
      const [first] = out.Errors ?? [];
      if (first)
        throw new AdminError(
          'incomplete',
          `S3 refused to delete ${out.Errors?.length ?? 1} objects (first: ${first.Key ?? '?'}: ${first.Code ?? '?'}); run the command again`,
        );
    }
  },
});
