import { beforeAll } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { insertLink } from '@shared/links/create-link';
import type { LinkRecord } from '@shared/links/link-record';
import { patchLink } from '@shared/links/patch-link';
import type { LinkResource } from '@shared/links/link-view';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { startDynamoFaultProxy, type DynamoFaultProxy } from './dynamodb-fault-proxy';
import { TEST_ORIGIN } from './test-origin';
import { waitUntil } from './wait-until';

export interface FaultProxyTenant {
  /** The fault proxy every DynamoDB call of the process goes through. */
  readonly proxy: DynamoFaultProxy;
  readonly tenant: BootstrapResult;
  /** Waits for what the proxy sees (polled every 5 ms). */
  until: (check: () => boolean) => Promise<void>;
  /** A short link of the tenant, with this key or a generated one. */
  newLink: (key?: string) => Promise<LinkRecord>;
  /**
   * Two PATCHes of one link that collide: `{ title: 'first' }` held inside its transaction until
   * `{ comments: 'second' }` has met it (a transaction conflict), then both let finish.
   */
  collidingPatches: (linkId: string) => Promise<[LinkResource, LinkResource]>;
}

/**
 * For a test file that collides transactions on the wire: a fault proxy in front of DynamoDB
 * Local for the whole file (the process's client goes through it), and a tenant bootstrapped
 * through it. Call at the top level of the file; `proxy` and `tenant` are there once the
 * file's `beforeAll` hooks have run.
 */
export const useFaultProxyTenant = (): FaultProxyTenant => {
  let proxy: DynamoFaultProxy | undefined;
  let tenant: BootstrapResult | undefined;
  beforeAll(async () => {
    const started = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!);
    proxy = started;
    process.env.DYNAMODB_ENDPOINT = started.endpoint;
    return () => started.stop();
  });
  beforeAll(async () => {
    tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is there only once the file's beforeAll hooks have run`);
    return value;
  };
  const self: FaultProxyTenant = {
    get proxy() {
      return ready(proxy, 'the fault proxy');
    },
    get tenant() {
      return ready(tenant, 'the tenant');
    },
    until: (check) => waitUntil(check, 'the fault proxy', { interval: 5 }),
    collidingPatches: async (linkId) => {
      const {
        proxy: faults,
        tenant: { workspaceId },
      } = self;
      const gate = faults.holdTransactions();
      const first = patchLink(workspaceId, 'SHORTLINK', linkId, { title: 'first' }, TEST_ORIGIN);
      await self.until(() => faults.ongoingTransactionItems() > 0);
      const before = faults.counts.transactionConflicts;
      const second = patchLink(workspaceId, 'SHORTLINK', linkId, { comments: 'second' }, TEST_ORIGIN);
      await self.until(() => faults.counts.transactionConflicts > before);
      gate.release();
      return Promise.all([first, second]);
    },
    newLink: async (key) => {
      const { workspaceId, domainId } = self.tenant;
      const domain = (await domainRepository.findById(workspaceId, domainId))!;
      return insertLink(
        { workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
        key ? { key } : {},
        TEST_ORIGIN,
      );
    },
  };
  return self;
};
