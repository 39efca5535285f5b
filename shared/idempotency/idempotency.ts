import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { AppError } from '@shared/errors/app-error';
import type { ApiReply } from '@shared/http/api-types';
import { canonicalJson } from '@shared/util/canonical-json';
import { sha256Hex } from '@shared/util/hash';
import { required } from '@shared/util/required';

/** Idempotency-Key on POST creates: same key and body within 24 h replays; another body is 409. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** A claim older than this is taken to be from a request that died; the key may be claimed again. */
export const IDEMPOTENCY_LEASE_MS = 30_000;
export const IDEMPOTENCY_KEY_MAX = 255;

interface IdempotencyRequest {
  workspaceId: string;
  scope: string;
  key: string;
  body: unknown;
}

interface StoredRecord {
  state: 'in_progress' | 'done';
  bodyHash: string;
  leaseUntil: number;
  status?: number;
  /** Small replies: the `data` JSON as is. */
  responseJson?: string;
  /** Larger replies: the `data` JSON gzipped, in the record itself... */
  responseGzip?: Uint8Array;
  /** ...or, beyond one item's room, split over this many part items (sk IDEM#PART#n). */
  responseParts?: number;
}

/** Replies up to this size are stored as plain JSON; larger ones gzipped (fewer write units). */
const PLAIN_MAX_BYTES = 16 * 1024;
/** Room for the reply in one item, well under DynamoDB's 400 KB item limit. */
const PART_MAX_BYTES = 300 * 1024;
const partKey = (key: { pk: string }, n: number) => ({ pk: key.pk, sk: `IDEM#PART#${n}` });

/**
 * Runs `run` at most once per (workspace, route, Idempotency-Key). The claim is a conditional
 * put, so of two concurrent requests exactly one runs; the other gets 409
 * `idempotency_request_in_progress`. Success replies are stored for 24 h and replayed for the
 * same body; a different body is 409 `idempotency_key_reused`. Failures release the claim.
 */
export const withIdempotency = async (request: IdempotencyRequest, run: () => Promise<ApiReply>): Promise<ApiReply> => {
  if (request.key.length < 1 || request.key.length > IDEMPOTENCY_KEY_MAX) {
    throw new AppError('invalid_request', 'The Idempotency-Key header is invalid', [
      { path: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` },
    ]);
  }
  const key = keys.idempotency(request.workspaceId, request.scope, sha256Hex(request.key));
  const bodyHash = sha256Hex(canonicalJson(request.body ?? null));
  const now = Date.now();
  const client = getDocumentClient();

  try {
    await client.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...key,
          type: 'IDEMPOTENCY',
          state: 'in_progress',
          bodyHash,
          leaseUntil: now + IDEMPOTENCY_LEASE_MS,
          ttl: Math.floor(now / 1000) + IDEMPOTENCY_WINDOW_SECONDS,
        },
        ConditionExpression:
          'attribute_not_exists(pk) OR #ttl < :nowSec OR (#state = :inProgress AND leaseUntil < :now AND bodyHash = :hash)',
        ExpressionAttributeNames: { '#ttl': 'ttl', '#state': 'state' },
        ExpressionAttributeValues: {
          ':nowSec': Math.floor(now / 1000),
          ':now': now,
          ':inProgress': 'in_progress',
          ':hash': bodyHash,
        },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const existing = (error.Item ? unmarshall(error.Item) : undefined) as StoredRecord | undefined;
    if (!existing)
      throw new AppError('idempotency_request_in_progress', 'A request with this Idempotency-Key is in progress');
    if (existing.bodyHash !== bodyHash) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different body');
    }
    if (existing.state !== 'done') {
      throw new AppError('idempotency_request_in_progress', 'A request with this Idempotency-Key is in progress');
    }
    return {
      status: existing.status ?? 200,
      data: await storedData(key, existing),
      headers: { 'Idempotent-Replayed': 'true' },
    };
  }

  let reply: ApiReply;
  try {
    reply = await run();
  } catch (error) {
    await release(key).catch(() => undefined);
    throw error;
  }
  if (reply.status >= 400) {
    await release(key);
    return reply;
  }
  await store(key, reply, Math.floor(now / 1000) + IDEMPOTENCY_WINDOW_SECONDS);
  return reply;
};

/**
 * Stores a finished reply for replay: plain JSON when small; else gzipped in the record; a reply
 * that is still too big for one item (a 100-item bulk create of maximum-size links) goes to part
 * items written before the record says `done`, so a replay never sees a partial reply.
 */
const store = async (key: { pk: string; sk: string }, reply: ApiReply, ttl: number) => {
  const client = getDocumentClient();
  const json = JSON.stringify(reply.data ?? null);
  const names = { '#state': 'state', '#status': 'status' };
  const base = { ':done': 'done', ':status': reply.status };
  if (Buffer.byteLength(json) <= PLAIN_MAX_BYTES) {
    await client.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #state = :done, #status = :status, responseJson = :json',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...base, ':json': json },
      }),
    );
    return;
  }
  const gzip = gzipSync(json);
  if (gzip.length <= PART_MAX_BYTES) {
    await client.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET #state = :done, #status = :status, responseGzip = :gzip',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...base, ':gzip': gzip },
      }),
    );
    return;
  }
  const parts: Buffer[] = [];
  for (let i = 0; i < gzip.length; i += PART_MAX_BYTES) parts.push(gzip.subarray(i, i + PART_MAX_BYTES));
  await Promise.all(
    parts.map((part, n) =>
      client.send(
        new PutCommand({ TableName: tableName(), Item: { ...partKey(key, n), type: 'IDEMPOTENCY', part, ttl } }),
      ),
    ),
  );
  await client.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #state = :done, #status = :status, responseParts = :parts',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...base, ':parts': parts.length },
    }),
  );
};

/** The stored `data` of a finished record, whichever way it was stored. */
const storedData = async (key: { pk: string; sk: string }, record: StoredRecord): Promise<unknown> => {
  if (record.responseJson !== undefined) return JSON.parse(record.responseJson);
  if (record.responseGzip !== undefined) return JSON.parse(gunzipSync(record.responseGzip).toString('utf8'));
  if (record.responseParts) {
    const parts = await Promise.all(
      Array.from({ length: record.responseParts }, async (_, n) => {
        const out = await getDocumentClient().send(
          new GetCommand({ TableName: tableName(), Key: partKey(key, n), ConsistentRead: true }),
        );
        return Buffer.from(required(out.Item, `part ${n} of a stored response`).part as Uint8Array);
      }),
    );
    return JSON.parse(gunzipSync(Buffer.concat(parts)).toString('utf8'));
  }
  return undefined;
};

const release = (key: { pk: string; sk: string }) =>
  getDocumentClient().send(
    new DeleteCommand({
      TableName: tableName(),
      Key: key,
      ConditionExpression: '#state = :inProgress',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':inProgress': 'in_progress' },
    }),
  );
