import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { notFound } from '@shared/errors/app-error';
import type { DomainRecord, HostRecord } from './tenancy-types';
import { strip } from './workspace-repository';

export const domainRepository = {
  /**
   * Writes the domain and its host record together; a hostname belongs to one workspace.
   * `alongside` (such as the change's audit entry), here and below, joins the same transaction.
   */
  async create(domain: DomainRecord, alongside: Record<string, unknown>[] = []): Promise<void> {
    const host: HostRecord = {
      hostname: domain.domain,
      workspaceId: domain.workspaceId,
      domainId: domain.id,
      appId: domain.appId,
      expiredUrl: domain.expiredUrl,
      notFoundUrl: domain.notFoundUrl,
    };
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.domain(domain.workspaceId, domain.id), type: 'DOMAIN', ...domain },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: tableName(),
              Item: { ...keys.host(domain.domain), type: 'HOST', ...host },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          ...alongside,
        ],
      }),
    );
  },

  /**
   * Sets where a domain's expired and unknown links go (provisioning, outside the HTTP API): the
   * domain item and its host record (what the edge reads) in one transaction. `null` clears.
   */
  async setFallbackUrls(
    domain: DomainRecord,
    urls: { expiredUrl: string | null; notFoundUrl: string | null },
    alongside: Record<string, unknown>[] = [],
  ): Promise<void> {
    const update = (key: { pk: string; sk: string }, withUpdatedAt: boolean) => ({
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET expiredUrl = :e, notFoundUrl = :n${withUpdatedAt ? ', updatedAt = :u' : ''}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: {
          ':e': urls.expiredUrl,
          ':n': urls.notFoundUrl,
          ...(withUpdatedAt ? { ':u': new Date().toISOString() } : {}),
        },
      },
    });
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          update(keys.domain(domain.workspaceId, domain.id), true),
          update(keys.host(domain.domain), false),
          ...alongside,
        ],
      }),
    );
  },

  /**
   * Turns web conversion tracking on or off for every link of a domain (provisioning): the
   * domain item and its host record (what the edge reads) in one transaction.
   */
  async setTrackConversions(
    domain: DomainRecord,
    on: boolean,
    alongside: Record<string, unknown>[] = [],
  ): Promise<void> {
    const update = (key: { pk: string; sk: string }, withUpdatedAt: boolean) => ({
      Update: {
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET trackConversions = :t${withUpdatedAt ? ', updatedAt = :u' : ''}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':t': on, ...(withUpdatedAt ? { ':u': new Date().toISOString() } : {}) },
      },
    });
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          update(keys.domain(domain.workspaceId, domain.id), true),
          update(keys.host(domain.domain), false),
          ...alongside,
        ],
      }),
    );
  },

  /** Flips `verified` (admin `domains verify`); the domain must exist. */
  async setVerified(domain: DomainRecord, verified: boolean, alongside: Record<string, unknown>[] = []): Promise<void> {
    const update = {
      TableName: tableName(),
      Key: keys.domain(domain.workspaceId, domain.id),
      UpdateExpression: 'SET verified = :v, updatedAt = :u',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':v': verified, ':u': new Date().toISOString() },
    };
    if (alongside.length === 0) await getDocumentClient().send(new UpdateCommand(update));
    else
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...alongside] }));
  },

  /**
   * `domains verify`'s flip of an unverified domain, with its audit entry (`alongside`) in the same
   * transaction, on the condition that the stored domain is still unverified: of concurrent runs
   * exactly one flips it and writes the entry. A run that finds it already flipped writes nothing
   * and gets `false`.
   */
  async flipToVerified(domain: DomainRecord, alongside: Record<string, unknown>[]): Promise<boolean> {
    const update = {
      TableName: tableName(),
      Key: keys.domain(domain.workspaceId, domain.id),
      UpdateExpression: 'SET verified = :t, updatedAt = :u',
      ConditionExpression: 'attribute_exists(pk) AND verified = :f',
      ExpressionAttributeValues: { ':t': true, ':f': false, ':u': new Date().toISOString() },
    };
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: [{ Update: update }, ...alongside] }));
      return true;
    } catch (error) {
      const refused =
        error instanceof TransactionCanceledException &&
        error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';
      if (refused && (await this.findById(domain.workspaceId, domain.id))?.verified === true) return false;
      throw error;
    }
  },

  /**
   * `domains remove`: the domain archived and unverified, its host record retired (kept, so the
   * edge answers every key with the domain's not-found answer), in one transaction.
   */
  async retire(domain: DomainRecord, alongside: Record<string, unknown>[] = []): Promise<void> {
    await getDocumentClient().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.domain(domain.workspaceId, domain.id),
              UpdateExpression: 'SET archived = :t, verified = :f, updatedAt = :u',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeValues: { ':t': true, ':f': false, ':u': new Date().toISOString() },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: keys.host(domain.domain),
              UpdateExpression: 'SET retired = :t',
              ConditionExpression: 'attribute_exists(pk) AND domainId = :d',
              ExpressionAttributeValues: { ':t': true, ':d': domain.id },
            },
          },
          ...alongside,
        ],
      }),
    );
  },

  async findById(workspaceId: string, domainId: string): Promise<DomainRecord | undefined> {
    const out = await getDocumentClient().send(
      new GetCommand({ TableName: tableName(), Key: keys.domain(workspaceId, domainId) }),
    );
    return out.Item ? (strip(out.Item) as DomainRecord) : undefined;
  },

  async getByIdOrThrow(workspaceId: string, domainId: string): Promise<DomainRecord> {
    const domain = await this.findById(workspaceId, domainId);
    if (!domain) throw notFound('Domain');
    return domain;
  },

  /** All domains of a workspace (one Query; workspaces have few domains). */
  async listByWorkspace(workspaceId: string): Promise<DomainRecord[]> {
    const { pk, skPrefix } = keys.domainsOfWorkspace(workspaceId);
    const items: DomainRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await getDocumentClient().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': pk, ':prefix': skPrefix },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) items.push(strip(item) as DomainRecord);
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return items;
  },

  /** The workspace's domain with this hostname, if it has one. */
  async findByHostname(workspaceId: string, hostname: string): Promise<DomainRecord | undefined> {
    const host = await this.findHost(hostname);
    if (!host || host.workspaceId !== workspaceId) return undefined;
    return this.findById(workspaceId, host.domainId);
  },

  /** `abortSignal`: the caller's read budget (the edge answers without the record when it fires). */
  async findHost(hostname: string, abortSignal?: AbortSignal): Promise<HostRecord | undefined> {
    const out = await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.host(hostname) }), {
      abortSignal,
    });
    return out.Item ? (strip(out.Item) as HostRecord) : undefined;
  },
};
