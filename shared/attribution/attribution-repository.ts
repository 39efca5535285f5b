import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { strip } from '@shared/tenancy/workspace-repository';
import type { ClientLinkPayload } from './client-link';

export const ATTRIBUTION_TTL_MS = 7 * 24 * 3600 * 1000;
export const PROBABILISTIC_WINDOW_MS = 2 * 3600 * 1000;

/** One eligible client click, kept 7 days (DynamoDB TTL) for first-open / deferred matching. */
export interface AttributionRecord {
  attributionId: string;
  clickId: string;
  workspaceId: string;
  linkId: string;
  sessionId: string;
  installId: string | null;
  clickedAt: string;
  expiresAt: string;
  /** Salted hash (see fingerprint.ts), or null when the click had no client IP. */
  fingerprint: string | null;
  link: ClientLinkPayload;
  /**
   * On the fingerprint entry only: the install (or open) that took this click by a match.
   * A click is claimed once; a later install behind the same IP gets no probabilistic match.
   */
  claimedBy?: string | null;
}

const ttlOf = (iso: string) => Math.ceil(Date.parse(iso) / 1000);
const live = (record: AttributionRecord | undefined, at: Date) =>
  record && Date.parse(record.expiresAt) > at.getTime() ? record : undefined;

export const attributionRepository = {
  /**
   * The record under its attribution id and its click id, and its fingerprint entry, at once.
   * An aborted `abortSignal` (the edge's record budget) cancels the write in flight.
   */
  async save(record: AttributionRecord, options: { abortSignal?: AbortSignal } = {}): Promise<void> {
    const item = { type: 'ATTR', ...record, ttl: ttlOf(record.expiresAt) };
    const puts: Array<Record<string, unknown>> = [
      { ...keys.attribution(record.attributionId), ...item },
      { ...keys.attributionByClick(record.clickId), ...item },
    ];
    if (record.fingerprint) {
      puts.push({
        ...keys.fingerprintClick(record.workspaceId, record.fingerprint, record.clickedAt, record.clickId),
        ...item,
        // Only useful inside the 2-hour window; a day of margin before TTL removes it.
        ttl: ttlOf(new Date(Date.parse(record.clickedAt) + 24 * 3600 * 1000).toISOString()),
      });
    }
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: puts.map((Item) => ({
          Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(pk)' },
        })),
      }),
      { abortSignal: options.abortSignal },
    );
  },

  /**
   * Claims the click for `claimant` with a conditional write on its fingerprint entry: true
   * when it was free or already this claimant's, false when another install took it first (or
   * the click has no fingerprint entry: nothing can claim it probabilistically anyway).
   */
  async claim(record: AttributionRecord, claimant: string, at: Date): Promise<boolean> {
    if (!record.fingerprint) return false;
    try {
      await getDocumentClient().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.fingerprintClick(record.workspaceId, record.fingerprint, record.clickedAt, record.clickId),
          UpdateExpression: 'SET claimedBy = :me, claimedAt = if_not_exists(claimedAt, :at)',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(claimedBy) OR claimedBy = :me)',
          ExpressionAttributeValues: { ':me': claimant, ':at': at.toISOString() },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },

  async findByAttributionId(attributionId: string, at: Date): Promise<AttributionRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.attribution(attributionId) }),
    );
    return live(out.Item ? (strip(out.Item) as AttributionRecord) : undefined, at);
  },

  async findByClickId(clickId: string, at: Date): Promise<AttributionRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.attributionByClick(clickId) }),
    );
    return live(out.Item ? (strip(out.Item) as AttributionRecord) : undefined, at);
  },

  /**
   * Clicks of the workspace with this fingerprint made in [at - 2 h, at], newest first (the
   * sort key starts with the click time). Both window edges are included.
   */
  async recentByFingerprint(
    workspaceId: string,
    fingerprint: string,
    at: Date,
    limit = 25,
  ): Promise<AttributionRecord[]> {
    const from = new Date(at.getTime() - PROBABILISTIC_WINDOW_MS).toISOString();
    const out = await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.fingerprintClicksOf(workspaceId, fingerprint).pk,
          ':from': `${from}#`,
          ':to': `${at.toISOString()}#~`,
        },
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return (out.Items ?? []).map((item) => strip(item) as AttributionRecord);
  },
};
