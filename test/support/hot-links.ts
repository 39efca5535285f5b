import type { CloudFrontKeyValueStoreClient } from '@aws-sdk/client-cloudfront-keyvaluestore';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { clickHourOf, liveHumans } from '@shared/clicks/link-counters';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { insertLink } from '@shared/links/create-link';
import { localKvsClient, startLocalKvs, type LocalKvs } from '@shared/local/local-kvs-server';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { TEST_ORIGIN } from '@test/support/test-origin';

/** A plain short link to `url` on the tenant's domain, stored as the create route stores it. */
export const insertShortLink = async (tenant: Pick<BootstrapResult, 'workspaceId' | 'domainId'>, url: string) => {
  const domain = await domainRepository.findById(tenant.workspaceId, tenant.domainId);
  if (!domain) throw new Error(`no domain ${tenant.domainId} in ${tenant.workspaceId}`);
  return insertLink(
    { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url },
    {},
    TEST_ORIGIN,
  );
};

/** Sets a link's live human clicks of the hour of `at`, as the counter consumer keeps them (`lh#<hour>`). */
export const setLiveHumanClicks = (linkId: string, at: Date, clicks: number) =>
  getDocumentClient().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.link(linkId),
      UpdateExpression: 'SET #h = :n',
      ExpressionAttributeNames: { '#h': liveHumans(clickHourOf(at.toISOString())) },
      ExpressionAttributeValues: { ':n': clicks },
    }),
  );

/** What a hot-link integration test works with: a tenant, a loopback KeyValueStore and its official client. */
export interface HotLinksFixture {
  tenant: BootstrapResult;
  kvs: LocalKvs;
  client: CloudFrontKeyValueStoreClient;
  stop: () => Promise<void>;
}

export const startHotLinksFixture = async (): Promise<HotLinksFixture> => {
  const tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
  const kvs = await startLocalKvs();
  const client = localKvsClient(kvs);
  return {
    tenant,
    kvs,
    client,
    stop: async () => {
      client.destroy();
      await kvs.stop();
    },
  };
};
