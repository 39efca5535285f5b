import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '@shared/admin/api-key-lifecycle';
import { hashApiKey } from '@shared/auth/api-keys';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { provideServices, resetServices } from '@shared/runtime/services';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(async () => t.stop());
afterEach(() => {
  resetServices('clocks');
});

/** Counts the key last-use writes (UpdateItem on APIKEY# partitions) the shared client sends. */
const countKeyWrites = () => {
  let count = 0;
  const client = getDocumentClient();
  const name = `count-key-writes-${Math.random()}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: { pk?: unknown } };
      const pk = JSON.stringify(input.Key?.pk ?? '');
      if (String(context.commandName).startsWith('Update') && pk.includes('APIKEY#')) count += 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return { count: () => count, stop: () => client.middlewareStack.remove(name) };
};

const lastUsedOn = async (plain: string) =>
  (await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(hashApiKey(plain)) }))).Item
    ?.lastUsedOn as string | undefined;

describe('key last use', () => {
  it('is written once per key per UTC day, inside the request, and never by the redirect path', async () => {
    const { key } = await issueKey({
      workspaceId: t.tenantA.workspaceId,
      kind: 'server',
      name: 'last used',
      scopes: ['read', 'links:write'],
    });
    const day1 = Date.parse('2031-03-04T10:00:00Z');
    provideServices({ clocks: { keys: () => day1 } });
    const writes = countKeyWrites();
    try {
      const list = () => http(t.baseUrl, 'GET', '/v1/links', { headers: { 'api-key': key } });
      expect((await list()).status).toBe(200);
      // Written before the answer: readable as soon as the response is.
      expect(await lastUsedOn(key)).toBe('2031-03-04');
      for (let i = 0; i < 3; i += 1) expect((await list()).status).toBe(200);
      expect(writes.count()).toBe(1);

      provideServices({ clocks: { keys: () => day1 + 24 * 3_600_000 } });
      expect((await list()).status).toBe(200);
      expect(await lastUsedOn(key)).toBe('2031-03-05');
      expect(writes.count()).toBe(2);

      // A clock going back never moves the mark back (the update is conditional).
      provideServices({ clocks: { keys: () => day1 } });
      expect((await list()).status).toBe(200);
      expect(await lastUsedOn(key)).toBe('2031-03-05');

      const created = await http(t.baseUrl, 'POST', '/v1/links', {
        headers: { 'api-key': key },
        json: { url: 'https://example.com/last-used', domain: t.tenantA.domain },
      });
      expect(created.status).toBe(201);
      const before = writes.count();
      const link = created.body.data as { domain: string; key: string };
      const redirect = await edgeRequest(t.edgeUrl, { host: link.domain, path: `/${link.key}`, method: 'GET' });
      expect(redirect.status).toBeLessThan(400); // the edge answered the link (a redirect or its page)
      expect(writes.count()).toBe(before);
    } finally {
      writes.stop();
    }
  });
});
