import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as hash from '@shared/util/hash';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { authenticateKeyOrThrow, hashApiKey } from '@shared/auth/api-keys';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
const lines: string[] = [];
beforeAll(async () => {
  process.env.LOG_LEVEL = 'debug';
  for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    });
  }
  // Powertools Logger and Metrics write to the streams through their own Console.
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    });
  }
  t = await startTestStack();
  return () => t.stop();
});
afterAll(() => {
  vi.restoreAllMocks();
  process.env.LOG_LEVEL = 'silent';
});

describe('secrets', () => {
  it('never writes keys or link passwords to logs or responses during a run of every kind of request', async () => {
    const password = 'correct-horse-battery-staple-42';
    const responses: string[] = [];
    const server = { 'api-key': t.tenantA.serverKey };
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: server,
      json: { url: 'https://example.com', domain: t.tenantA.domain, password },
    });
    responses.push(created.text);
    responses.push((await http(t.baseUrl, 'GET', `/v1/links/${created.body.data.id}`, { headers: server })).text);
    responses.push(
      (
        await http(t.baseUrl, 'POST', '/v1/links', {
          headers: { ...server, 'idempotency-key': 'k1' },
          json: { url: 'https://example.com', domain: t.tenantA.domain, password },
        })
      ).text,
    );
    responses.push(
      (
        await http(t.baseUrl, 'POST', '/v1/links', {
          headers: { ...server, 'idempotency-key': 'k1' },
          json: { url: 'https://example.com', domain: t.tenantA.domain, password },
        })
      ).text,
    );
    responses.push(
      (
        await http(t.baseUrl, 'POST', '/v1/links', {
          headers: server,
          json: { url: 'javascript:x', domain: t.tenantA.domain, password: 'p'.repeat(200) },
        })
      ).text,
    );
    responses.push(
      (await http(t.baseUrl, 'GET', '/v1/links/x', { headers: { 'api-key': `${t.tenantA.serverKey}x` } })).text,
    );
    responses.push((await http(t.baseUrl, 'GET', '/v1/links/x', { headers: { 'api-key': t.tenantA.mobileKey } })).text);
    responses.push(
      (
        await http(t.baseUrl, 'GET', '/v1/links/x', {
          headers: { authorization: `Bearer ${t.tenantA.publishableKeys.ios.key}` },
        })
      ).text,
    );

    const secrets = [
      password,
      t.tenantA.serverKey,
      t.tenantA.mobileKey,
      t.tenantA.deepLinkApp.appKey,
      t.tenantA.publishableKeys.browser.key,
      t.tenantA.publishableKeys.ios.key,
      t.tenantA.publishableKeys.android.key,
    ];
    const logs = lines.join('\n');
    for (const secret of secrets) {
      expect(logs, 'a secret reached the logs').not.toContain(secret);
      for (const body of responses) expect(body, 'a secret reached a response').not.toContain(secret);
    }
    expect(responses.join('\n')).not.toMatch(/scrypt\$/);
  });

  it('checks unknown and revoked keys on the same path: one lookup by hash, no comparison of secrets in code, same 401', async () => {
    const compare = vi.spyOn(hash, 'safeEqual');
    const lookup = vi.spyOn(apiKeyRepository, 'findByHash');
    await apiKeyRepository.put({
      keyHash: hashApiKey('sk_revoked_example'),
      kind: 'server',
      workspaceId: 'ws_x',
      appId: null,
      revoked: true,
      createdAt: new Date().toISOString(),
      publishable: null,
    });

    const unknown = await authenticateKeyOrThrow('sk_unknown_example').catch((e: unknown) => e);
    const afterUnknown = { compares: compare.mock.calls.length, lookups: lookup.mock.calls.length };
    const revoked = await authenticateKeyOrThrow('sk_revoked_example').catch((e: unknown) => e);

    // The key's SHA-256 is the table key: DynamoDB finds it or not; no secret is compared here.
    expect(afterUnknown).toEqual({ compares: 0, lookups: 1 });
    expect({ compares: compare.mock.calls.length, lookups: lookup.mock.calls.length }).toEqual({
      compares: 0,
      lookups: 2,
    });
    expect(lookup.mock.calls.map(([keyHash]) => keyHash)).toEqual([
      hashApiKey('sk_unknown_example'),
      hashApiKey('sk_revoked_example'),
    ]);
    expect(unknown).toMatchObject({ code: 'unauthorized', message: 'A valid API key is required' });
    expect(revoked).toMatchObject({ code: 'unauthorized', message: 'A valid API key is required' });
  });
});
