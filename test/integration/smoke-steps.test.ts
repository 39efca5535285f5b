import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { collectWorkspaceItems } from '@shared/admin/workspace-items';
import { startLocalStack, type LocalStack } from '@shared/local/local-stack';
import { CLEANUP_STEP, DIRECT_ACCESS_STEP, runSmoke } from '../../scripts/smoke-steps';

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    edgePort: 0,
    dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
    tableName: process.env.TABLE_NAME,
    lakeDir: process.env.LOCAL_LAKE_DIR,
  });
});
afterAll(async () => stack.stop());

/** A loopback address nothing listens on: every API call to it is refused. */
const closedUrl = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
};

describe('the smoke steps when the deployment is broken', () => {
  it('fail the steps that hit the broken part, and still erase the throwaway workspace', async () => {
    const results = await runSmoke({
      baseUrl: await closedUrl(),
      clickOrigin: stack.edgeUrl,
      clickHeaders: { 'cloudfront-viewer-country': 'NL' },
      directOrigins: [stack.originUrl],
      lake: createLocalLakeStore(stack.lakeDir),
    });
    const byStep = new Map(results.map((r) => [r.step, r]));
    expect(byStep.get('provision a throwaway workspace')?.pass).toBe(true);
    expect(byStep.get('create a short link (POST /v1/links)')?.pass).toBe(false);
    expect(byStep.get('raw export (GET /v1/analytics/events)')?.pass).toBe(false);
    expect(byStep.get(DIRECT_ACCESS_STEP)?.pass).toBe(true);
    expect(results.at(-1)).toMatchObject({ step: CLEANUP_STEP, pass: true });
    const workspaceId = byStep.get('provision a throwaway workspace')!.detail;
    expect((await collectWorkspaceItems(workspaceId)).items).toEqual([]);
  });

  it('fail the direct-access check when the origin answers a request that bypassed the front door', async () => {
    // The front door's address stands in for an origin that does not check the origin secret.
    const results = await runSmoke({
      baseUrl: stack.baseUrl,
      clickOrigin: stack.edgeUrl,
      clickHeaders: { 'cloudfront-viewer-country': 'NL' },
      directOrigins: [stack.originUrl, stack.edgeUrl],
      lake: createLocalLakeStore(stack.lakeDir),
    });
    const direct = results.find((r) => r.step === DIRECT_ACCESS_STEP);
    expect(direct?.pass).toBe(false);
    expect(direct?.detail).toMatch(new RegExp(`^${stack.edgeUrl}: HTTP \\d+, expected 403$`));
    expect(results.filter((r) => !r.pass).map((r) => r.step)).toEqual([DIRECT_ACCESS_STEP]);
    expect(results.at(-1)).toMatchObject({ step: CLEANUP_STEP, pass: true });
  }, 90_000);
});
