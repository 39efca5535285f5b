import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';

export interface TestStack {
  stack: LocalStack;
  baseUrl: string;
  edgeUrl: string;
  tenantA: BootstrapResult;
  tenantB: BootstrapResult;
  stop(): Promise<void>;
}

/** The local stack on free ports over this test file's table, with two tenants. */
export const startTestStack = async (): Promise<TestStack> => {
  const stack = await startLocalStack({
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
  return { stack, baseUrl: stack.baseUrl, edgeUrl: stack.edgeUrl, tenantA, tenantB, stop: () => stack.stop() };
};
