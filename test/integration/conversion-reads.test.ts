import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { clearConversionSettingsCache, conversionSettingsRepository } from '@shared/conversions/conversion-settings';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { handleLinkRequest } from '@shared/edge/handle-click';
import { clearHostCache } from '@shared/edge/host-resolver';
import type { ApiEvent } from '@shared/http/api-types';
import { createShortLink } from '@shared/links/create-link';
import { TEST_ORIGIN } from '@test/support/test-origin';

/*
 * The redirect's cost with web conversion tracking: the token's facts ride on the items every
 * click reads already (the redirect record, the host), and the workspace's secret is cached, so
 * a tracked click reads no more than an untracked one once the cache holds it; an untracked
 * click never reads the conversion settings at all.
 */

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let tenant: BootstrapResult;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://x', edgeUrl: 'http://y' });
});
afterEach(() => {
  vi.restoreAllMocks();
});

const click = (key: string) =>
  handleLinkRequest(
    {
      headers: { host: tenant.domain, 'user-agent': DESKTOP },
      rawPath: `/${key}`,
      rawQueryString: '',
      pathParameters: { key },
      requestContext: { http: { method: 'GET', sourceIp: '198.51.100.1' } },
    } as unknown as ApiEvent,
    'req-conversions',
  );

/**
 * The partition keys of the item reads (GetItem) one click makes on the partitions a click reads
 * (slug, host, workspace, secrets, conversion settings): the local stack's counter consumer works
 * on links in the background meanwhile, through the same client, and is left out.
 */
const CLICK_PARTITIONS = /^(SLUG#|HOST#|WS#|SECRET|CONVERSIONS#)/;
const readsOf = async (key: string): Promise<{ location: string; reads: string[] }> => {
  const send = vi.spyOn(getDocumentClient(), 'send');
  const result = await click(key);
  const reads = send.mock.calls
    .filter(([command]) => command instanceof GetCommand)
    .map(([command]) => (command.input as { Key?: { pk?: string } }).Key?.pk ?? '')
    .filter((pk) => CLICK_PARTITIONS.test(pk));
  send.mockRestore();
  return { location: String(result.headers?.Location), reads };
};

describe('the redirect with web conversion tracking', () => {
  it('reads the workspace secret once per cache lifetime; an untracked click never', async () => {
    const tracked = await createShortLink(
      tenant.workspaceId,
      { url: 'https://example.com/tracked', domain: tenant.domain, trackConversions: true },
      TEST_ORIGIN,
    );
    const plain = await createShortLink(
      tenant.workspaceId,
      { url: 'https://example.com/plain', domain: tenant.domain },
      TEST_ORIGIN,
    );
    // Creating a tracked link created the workspace's settings.
    expect(await conversionSettingsRepository.get(tenant.workspaceId)).toMatchObject({ param: 'lsid' });
    clearHostCache();
    clearConversionSettingsCache();

    const first = await readsOf(tracked.key);
    expect(new URL(first.location).searchParams.get('lsid')).toMatch(/^v1\./);
    expect(first.reads.filter((pk) => pk.startsWith('CONVERSIONS#'))).toHaveLength(1);

    const second = await readsOf(tracked.key);
    const untracked = await readsOf(plain.key);
    expect(new URL(untracked.location).searchParams.has('lsid')).toBe(false);
    expect(second.reads.filter((pk) => pk.startsWith('CONVERSIONS#'))).toEqual([]);
    expect(untracked.reads.filter((pk) => pk.startsWith('CONVERSIONS#'))).toEqual([]);
    // Once cached, a tracked click reads what an untracked one does: its slug item.
    expect(untracked.reads.some((pk) => pk.startsWith('SLUG#'))).toBe(true);
    expect(second.reads.map((pk) => pk.replace(/#[^#]+$/, '#<key>'))).toEqual(
      untracked.reads.map((pk) => pk.replace(/#[^#]+$/, '#<key>')),
    );
  });

  it('a cached miss stands on the edge, but the events route reads past it (settings made elsewhere meanwhile)', async () => {
    const workspace = await bootstrapTenant({ baseUrl: 'http://x', edgeUrl: 'http://y' });
    expect(await conversionSettingsRepository.find(workspace.workspaceId)).toBeUndefined();
    // Another process (the links API, the admin CLI) creates them: this process's cache still holds the miss.
    await getDocumentClient().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.conversionSettings(workspace.workspaceId),
          type: 'CONVERSIONS',
          workspaceId: workspace.workspaceId,
          secret: 'made elsewhere',
          param: 'lsid',
          createdAt: '2026-01-01T00:00:00.000Z',
          updatedAt: '2026-01-01T00:00:00.000Z',
        },
      }),
    );
    expect(await conversionSettingsRepository.find(workspace.workspaceId)).toBeUndefined();
    expect(await conversionSettingsRepository.find(workspace.workspaceId, { rereadMiss: true })).toMatchObject({
      secret: 'made elsewhere',
    });
    // Found, it is cached for both.
    expect(await conversionSettingsRepository.find(workspace.workspaceId)).toMatchObject({ secret: 'made elsewhere' });
  });
});
