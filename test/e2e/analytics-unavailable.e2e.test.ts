import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '@shared/config/config';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
let lakeDir: string;
beforeAll(async () => {
  t = await startTestStack();
  lakeDir = process.env.LOCAL_LAKE_DIR!;
  return () => t.stop();
});
afterAll(() => {
  process.env.LOCAL_LAKE_DIR = lakeDir;
  resetConfig();
});

const server = { 'api-key': '' };
const analyticsCalls = () => [
  http(t.baseUrl, 'GET', '/v1/analytics/events', { headers: { 'api-key': t.tenantA.serverKey } }),
  http(t.baseUrl, 'GET', '/v1/analytics/deep-link-app', { headers: { 'api-key': t.tenantA.deepLinkApp.appKey } }),
];

describe('503 analytics_unavailable, while links keep working', () => {
  it('answers 503 on every analytics route when no backend is configured; link routes still work', async () => {
    server['api-key'] = t.tenantA.serverKey;
    const link = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server,
      json: { url: 'https://example.com/x', domain: t.tenantA.domain },
    });
    delete process.env.LOCAL_LAKE_DIR;
    resetConfig();
    const responses = [
      ...(await Promise.all(analyticsCalls())),
      await http(t.baseUrl, 'GET', `/v1/analytics/links/${link.body.data.id}`, { headers: server }),
    ];
    for (const res of responses) {
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'analytics_unavailable' },
        requestId: expect.any(String),
      });
    }
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server,
      json: { url: 'https://example.com/y', domain: t.tenantA.domain },
    });
    expect(created.status).toBe(201);
    expect((await http(t.baseUrl, 'GET', `/v1/links/${created.body.data.id}`, { headers: server })).status).toBe(200);
  });

  it('answers 503 when the lake cannot be read, and 200 again once it can', async () => {
    const notADirectory = path.join(lakeDir, 'not-a-directory');
    writeFileSync(notADirectory, 'x');
    process.env.LOCAL_LAKE_DIR = notADirectory;
    resetConfig();
    for (const res of await Promise.all(analyticsCalls())) expect(res.status).toBe(503);
    process.env.LOCAL_LAKE_DIR = lakeDir;
    resetConfig();
    for (const res of await Promise.all(analyticsCalls())) expect(res.status).toBe(200);
  });
});
