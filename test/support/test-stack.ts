import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';

export interface TestStack {
  stack: LocalStack;
  baseUrl: string;
  edgeUrl: string;
  tenantA: BootstrapResult;
  tenantB: BootstrapResult;
  /**
   * Resolves once every request the stack has received is finished, work after its response
   * included: the edge answers a click first and records it after (docs/edge.md), so a test that
   * clicks and then reads counters, events or attribution awaits this in between.
   */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The local stack on free ports over this test file's table, with two tenants (`edgeHotLinks`: hot links at the local edge). */
export const startTestStack = async (options: { edgeHotLinks?: boolean } = {}): Promise<TestStack> => {
  const stack = await startLocalStack({
    ...options,
    port: 0,
    edgePort: 0,
    dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
    tableName: process.env.TABLE_NAME,
    lakeDir: process.env.LOCAL_LAKE_DIR,
  });
  const [tenantA, tenantB] = await Promise.all([
    bootstrapTenant({ baseUrl: stack.baseUrl, edgeUrl: stack.edgeUrl, name: 'Tenant A' }),
    bootstrapTenant({ baseUrl: stack.baseUrl, edgeUrl: stack.edgeUrl, name: 'Tenant B' }),
  ]);
  return {
    stack,
    baseUrl: stack.baseUrl,
    edgeUrl: stack.edgeUrl,
    tenantA,
    tenantB,
    idle: () => stack.idle(),
    stop: () => stack.stop(),
  };
};
