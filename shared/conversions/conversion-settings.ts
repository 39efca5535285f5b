import { randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { LRUCache } from 'lru-cache';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';

/** The query parameter the click token rides in when the workspace names none. */
export const DEFAULT_CONVERSION_PARAM = 'lsid';
/** A parameter name: what a URL query carries without escaping, and no tracking parameter's name. */
export const CONVERSION_PARAM = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;

/**
 * A workspace's web conversion settings (pk CONVERSIONS#workspace): the HMAC secret its click
 * tokens are signed with (256 random bits, created when tracking is first turned on, like the
 * deployment's secrets and a webhook endpoint's secret: kept in the table, never returned by the
 * API; the edge only reads it) and the query
 * parameter the edge puts the token in.
 */
export interface ConversionSettings {
  workspaceId: string;
  secret: string;
  param: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * How long one Lambda instance reuses a workspace's settings: the edge signs and the events
 * route verifies without a table read per click or event. A changed parameter name reaches
 * every instance within this time; the secret never changes.
 */
export const CONVERSION_SETTINGS_TTL_MS = 60_000;
const cache = new LRUCache<string, { value: ConversionSettings | null }>({
  max: 1_000,
  ttl: CONVERSION_SETTINGS_TTL_MS,
});

const read = async (workspaceId: string, consistent = false): Promise<ConversionSettings | undefined> => {
  const out = await getDocumentClient().send(
    new GetCommand({ TableName: tableName(), Key: keys.conversionSettings(workspaceId), ConsistentRead: consistent }),
  );
  return out.Item ? settingsOf(out.Item) : undefined;
};

const settingsOf = (item: Record<string, unknown>): ConversionSettings => ({
  workspaceId: String(item.workspaceId),
  secret: String(item.secret),
  param: typeof item.param === 'string' ? item.param : DEFAULT_CONVERSION_PARAM,
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt),
});

/** Creates the settings unless they exist (conditional put); either way, what is stored. */
const create = async (workspaceId: string, now: Date): Promise<ConversionSettings> => {
  const at = now.toISOString();
  const settings: ConversionSettings = {
    workspaceId,
    secret: randomBytes(32).toString('base64url'),
    param: DEFAULT_CONVERSION_PARAM,
    createdAt: at,
    updatedAt: at,
  };
  try {
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.conversionSettings(workspaceId), type: 'CONVERSIONS', ...settings },
        ConditionExpression: 'attribute_not_exists(pk)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return settings;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException && error.Item) return settingsOf(unmarshall(error.Item));
    throw error;
  }
};

export const conversionSettingsRepository = {
  /**
   * The settings, created when missing: whatever turns tracking on (a link's `trackConversions`
   * through the API, a domain's setting through the admin CLI) calls this first, so the edge and
   * the events route only ever read them. Cached.
   */
  async getOrCreate(workspaceId: string, now = new Date()): Promise<ConversionSettings> {
    const hit = cache.get(workspaceId)?.value;
    if (hit) return hit;
    const settings = (await read(workspaceId)) ?? (await create(workspaceId, now));
    cache.set(workspaceId, { value: settings });
    return settings;
  },
  /**
   * The settings when they exist (a workspace that never turned tracking on has none): the edge
   * and the events route. Hits and misses are cached, so neither costs a table read per click;
   * `rereadMiss` reads again past a cached miss (the events route: a token can only exist once
   * the settings do, so a miss cached before they were created must not refuse it).
   */
  async find(workspaceId: string, { rereadMiss = false } = {}): Promise<ConversionSettings | undefined> {
    const hit = cache.get(workspaceId);
    if (hit && (hit.value || !rereadMiss)) return hit.value ?? undefined;
    const settings = await read(workspaceId);
    cache.set(workspaceId, { value: settings ?? null });
    return settings;
  },
  /** Sets the workspace's parameter name (admin CLI), creating the settings first when needed. */
  async setParam(workspaceId: string, param: string, now = new Date()): Promise<ConversionSettings> {
    await create(workspaceId, now);
    const out = await getDocumentClient().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.conversionSettings(workspaceId),
        UpdateExpression: 'SET #param = :param, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#param': 'param' },
        ExpressionAttributeValues: { ':param': param, ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const settings = settingsOf(out.Attributes ?? {});
    cache.delete(workspaceId);
    return settings;
  },
  /** The stored settings, read consistently (admin CLI). */
  get: (workspaceId: string) => read(workspaceId, true),
};

/** For tests: forget every cached workspace's settings. */
export const clearConversionSettingsCache = () => {
  cache.clear();
};
