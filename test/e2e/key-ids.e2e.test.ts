/**
 * Public key ids (`key_...`) where operators meet them: on every log line of an authenticated
 * request (never the key or its hash), given to keys stored before ids by `keys backfill-ids`,
 * and in `keys rotate`, whose new key and old key's new end are one transaction (a key revoked
 * meanwhile fails the rotation with nothing written). Against DynamoDB Local, the admin CLI run
 * as an operator runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyMaintenance } from '@shared/admin/api-key-maintenance';
import { apiKeyRepository } from '@shared/auth/api-key-repository';
import { generateApiKey, hashApiKey } from '@shared/auth/api-keys';
import { derivedKeyId } from '@shared/auth/key-id';
import type { ApiContext, ApiEvent } from '@shared/http/api-types';
import { legacyHandler } from '@shared/http/legacy-handler';
import { v1Handler } from '@shared/http/v1-handler';
import { routeTable } from '@shared/routes/route-table';
import type { RouteDef } from '@shared/routes/route-types';
import { timeOrderedId } from '@shared/util/ids';
import { log } from '@shared/util/logger';
import { runAdmin, runAdminFailing, runAdminJson } from '@test/support/admin-cli';
import { startDynamoFaultProxy, type DynamoFaultProxy } from '@test/support/dynamodb-fault-proxy';
import { http } from '@test/support/http-client';
import { captureOutput } from '@test/support/log-capture';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { waitUntil } from '@test/support/wait-until';
import { credentialHeaders } from '../reliability/route-cases';

let t: TestStack;
let proxy: DynamoFaultProxy;
beforeAll(async () => {
  t = await startTestStack();
  // The table-stream consumer (another function when deployed) runs in this process locally, on
  // the same logger: these tests read the lines of the handlers they invoke only.
  await t.stack.outbound.stop();
  proxy = await startDynamoFaultProxy(process.env.DYNAMODB_ENDPOINT!);
});
afterAll(async () => {
  await proxy.stop();
  await t.stop();
});

const SPAWNS = { timeout: 240_000 };

const context = {
  functionName: 'key-ids',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:key-ids',
  memoryLimitInMB: '512',
  awsRequestId: 'lambda-request-key-ids',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as ApiContext;

/** An API Gateway (payload 2.0) event for a route, with the given headers. */
const eventFor = (route: RouteDef, headers: Record<string, string>, requestId: string): ApiEvent => {
  const path = route.path.replace(/\{[^}]+\}/g, 'x');
  return {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { ...headers, 'x-request-id': requestId },
    requestContext: { http: { method: route.method, path, sourceIp: '127.0.0.1', userAgent: 'key-ids-test' } },
    pathParameters: {},
    isBase64Encoded: false,
  } as unknown as ApiEvent;
};

/**
 * The route's own middleware chain (auth by its credential and scope) around a body that writes
 * one line: its row without its request schemas or form decoder, so any request reaches the body.
 */
const handlerWithLine = (route: RouteDef) =>
  route.credential === 'legacy-mobile' || route.credential === 'legacy-app'
    ? legacyHandler({ ...route, decodeForm: undefined }, () => {
        log('info', 'route body ran');
        return Promise.resolve({});
      })
    : v1Handler({ ...route, request: {} }, () => {
        log('info', 'route body ran');
        return Promise.resolve({ status: 200, data: {} });
      });

/** The plain key a request with these headers presents. */
const presentedKey = (headers: Record<string, string>) =>
  headers['api-key'] ?? headers['x-publishable-key'] ?? headers.authorization?.replace(/^Bearer /, '') ?? '';

const withLogLevel = async <T>(level: string, fn: () => Promise<T>): Promise<T> => {
  const before = process.env.LOG_LEVEL;
  process.env.LOG_LEVEL = level;
  try {
    return await fn();
  } finally {
    process.env.LOG_LEVEL = before;
  }
};

/** A key stored as keys were before public ids: no keyId, name or index attributes. */
const storeKeyWithoutId = async (workspaceId: string, createdAt = new Date().toISOString()) => {
  const key = generateApiKey('server');
  await apiKeyRepository.put({
    keyHash: hashApiKey(key),
    kind: 'server',
    workspaceId,
    appId: null,
    revoked: false,
    createdAt,
    publishable: null,
  });
  return { key, keyHash: hashApiKey(key), id: derivedKeyId(hashApiKey(key), createdAt) };
};

interface ListedKey {
  id: string;
  name: string;
  kind: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}
interface BackfillReport {
  scanned: number;
  withoutId: number;
  assigned: number;
  alreadyHadId: number;
  keyIds: string[];
}

describe('key ids in the log lines of authenticated requests', () => {
  const keyed = routeTable.filter((r) => r.credential !== 'none');

  it('covers every keyed route of the table', () => {
    expect(new Set(keyed.map((r) => r.credential))).toEqual(
      new Set(['server', 'app', 'publishable', 'legacy-mobile', 'legacy-app']),
    );
  });

  for (const route of keyed) {
    it(`${route.method} ${route.path} (${route.handler}): every line carries the key's id, never the key or its hash`, async () => {
      const headers = credentialHeaders(route.credential, t.tenantA);
      const plain = presentedKey(headers);
      const record = await apiKeyRepository.findByHash(hashApiKey(plain));
      expect(record?.keyId).toMatch(/^key_[0-9A-Z]{26}$/);
      const requestId = `key-ids-${route.handler}`;
      const output = captureOutput();
      const result = await withLogLevel('info', () =>
        handlerWithLine(route)(eventFor(route, headers, requestId), context),
      ).finally(() => {
        output.stop();
      });
      expect((result as { statusCode: number }).statusCode).toBe(200);
      const lines = output.json().filter((l) => l.requestId === requestId);
      expect(lines.map((l) => l.message)).toContain('route body ran');
      for (const line of lines) expect(line.keyId).toBe(record!.keyId);
      const raw = output
        .lines()
        .map((l) => l.line)
        .join('\n');
      expect(raw).not.toContain(plain);
      expect(raw).not.toContain(record!.keyHash);
    });
  }

  it("a key stored before ids is named by the id the backfill will give it; the next request's lines do not inherit it", async () => {
    const old = await storeKeyWithoutId(t.tenantA.workspaceId, '2024-03-01T10:00:00.000Z');
    const keyedRoute = routeTable.find((r) => r.handler === 'links-list')!;
    const publicRoute = routeTable.find((r) => r.handler === 'openapi-get')!;
    const output = captureOutput();
    await withLogLevel('info', async () => {
      await handlerWithLine(keyedRoute)(eventFor(keyedRoute, { 'api-key': old.key }, 'old-key-request'), context);
      // The next request on the instance, on a route without a key: its lines name no key.
      await handlerWithLine(publicRoute)(eventFor(publicRoute, {}, 'public-request'), context);
    }).finally(() => {
      output.stop();
    });
    const lines = output.json();
    const first = lines.filter((l) => l.requestId === 'old-key-request');
    expect(first.map((l) => l.message)).toContain('route body ran');
    for (const line of first) expect(line.keyId).toBe(old.id);
    const next = lines.filter((l) => l.requestId === 'public-request');
    expect(next.map((l) => l.message)).toEqual(['route body ran']);
    expect(next[0]!.keyId).toBeUndefined();
    expect(JSON.stringify(lines)).not.toContain(old.key);
    // Derived from the hash and the creation time: the same id every time, in the id format, sorting by creation.
    expect(old.id).toBe(derivedKeyId(old.keyHash, '2024-03-01T10:00:00.000Z'));
    expect(old.id).toMatch(/^key_01HQWQ9N80[0-9A-Z]{16}$/);
    expect(derivedKeyId('another hash', '2024-03-01T10:00:00.000Z')).not.toBe(old.id);
    expect(old.id.slice(4, 14)).toBe(timeOrderedId(Date.parse('2024-03-01T10:00:00.000Z')).slice(0, 10));
  });
});

describe('keys backfill-ids', SPAWNS, () => {
  it('gives keys stored before ids the id their log lines carry, once; keys list, revoke and rotate then see them', async () => {
    const ws = t.tenantA.workspaceId;
    const first = await storeKeyWithoutId(ws, '2024-05-01T08:00:00.000Z');
    const second = await storeKeyWithoutId(ws, '2024-06-01T08:00:00.000Z');
    const elsewhere = await storeKeyWithoutId(t.tenantB.workspaceId, '2024-07-01T08:00:00.000Z');
    const listed = () => runAdminJson<ListedKey[]>(['keys', 'list', ws]);
    expect((await listed()).map((k) => k.id)).not.toContain(first.id);
    const unknown = await runAdminFailing(['keys', 'revoke', first.id, '--json']);
    expect(JSON.parse(unknown.stderr)).toEqual({
      error: { code: 'not_found', message: expect.stringContaining('keys backfill-ids') as string },
    });

    // One workspace first: the other workspace's key keeps waiting.
    const report = await runAdminJson<BackfillReport>(['keys', 'backfill-ids', '--workspace', ws]);
    expect(report.assigned).toBe(report.withoutId);
    expect(report.alreadyHadId).toBe(0);
    expect(report.keyIds).toEqual(expect.arrayContaining([first.id, second.id]));
    expect(report.keyIds).not.toContain(elsewhere.id);
    expect(report.scanned).toBeGreaterThan(report.withoutId);
    expect((await apiKeyRepository.findByHash(elsewhere.keyHash))?.keyId).toBeUndefined();

    const keys = await listed();
    expect(keys.find((k) => k.id === first.id)).toEqual({
      id: first.id,
      name: '',
      kind: 'server',
      scopes: ['all'],
      createdAt: '2024-05-01T08:00:00.000Z',
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(JSON.stringify(keys)).not.toContain(first.keyHash);

    // Idempotent: a second run (the whole table) gives only the other workspace's key its id.
    const again = await runAdminJson<BackfillReport>(['keys', 'backfill-ids']);
    expect(again.keyIds).toContain(elsewhere.id);
    expect(again.keyIds).not.toContain(first.id);
    const third = await runAdminJson<BackfillReport>(['keys', 'backfill-ids']);
    expect(third).toMatchObject({ withoutId: 0, assigned: 0, alreadyHadId: 0, keyIds: [] });
    // The write is conditional on the key having no id: nothing is overwritten.
    expect(await apiKeyMaintenance.assignId({ ...first, workspaceId: ws, createdAt: 'x' }, 'key_other')).toBe(false);
    expect((await apiKeyRepository.findByHash(first.keyHash))?.keyId).toBe(first.id);

    // Revoke and rotate by the id, as for any key.
    const links = (key: string) => http(t.baseUrl, 'GET', '/v1/links', { headers: { 'api-key': key } });
    expect((await links(first.key)).status).toBe(200);
    await runAdminJson(['keys', 'revoke', first.id]);
    expect((await links(first.key)).status).toBe(401);
    const rotated = await runAdminJson<{ id: string; key: string; previousKeyId: string; scopes: string[] }>([
      'keys',
      'rotate',
      second.id,
      '--overlap',
      '0s',
    ]);
    expect(rotated).toMatchObject({ previousKeyId: second.id, scopes: ['all'] });
    expect((await links(rotated.key)).status).toBe(200);
    expect((await links(second.key)).status).toBe(401);
  });

  it('says so in a sentence when every key has an id, and refuses an unknown workspace', async () => {
    await runAdminJson(['keys', 'backfill-ids']);
    const text = await runAdmin(['keys', 'backfill-ids']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Every key has an id \(\d+ items scanned\); nothing was written\.\n$/);
    const missing = await runAdminFailing(['keys', 'backfill-ids', '--workspace', 'ws_missing', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stderr)).toEqual({ error: { code: 'not_found', message: 'No workspace ws_missing.' } });
  });
});

describe('keys rotate is one transaction', SPAWNS, () => {
  const createKey = (name: string) =>
    runAdminJson<{ id: string; key: string }>([
      'keys',
      'create',
      t.tenantA.workspaceId,
      '--scope',
      'read',
      '--name',
      name,
    ]);
  const keyCount = async () => (await apiKeyRepository.listByWorkspace(t.tenantA.workspaceId)).length;

  /**
   * Runs `keys rotate` through the proxy, holding its transaction until `meanwhile` (which writes
   * straight to DynamoDB Local, past the proxy) has changed the old key, then lets it go.
   */
  const rotateWhile = async (args: string[], meanwhile: () => Promise<unknown>) => {
    const hold = proxy.holdTransactions();
    try {
      const run = runAdmin(['keys', 'rotate', ...args], { DYNAMODB_ENDPOINT: proxy.endpoint });
      await waitUntil(() => proxy.ongoingTransactionItems() > 0, 'the rotation to send its transaction', {
        timeout: 120_000,
      });
      await meanwhile();
      hold.release();
      return await run;
    } finally {
      hold.release();
    }
  };

  it('a key revoked while it is rotated: exit 1, one JSON error, no new key and the old end untouched', async () => {
    const old = await createKey('revoked meanwhile');
    const before = await keyCount();
    const result = await rotateWhile([old.id, '--overlap', '1h', '--json'], () =>
      apiKeyRepository.revoke(hashApiKey(old.key)),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toEqual({
      error: {
        code: 'conflict',
        message: `Key ${old.id} was revoked while it was being rotated: nothing was written (no new key was made).`,
      },
    });
    expect(await keyCount()).toBe(before);
    const stored = await apiKeyRepository.findByHash(hashApiKey(old.key));
    expect(stored).toMatchObject({ revoked: true, expiresAt: null });
  });

  it('a key changed while it is rotated (another rotation): a sentence on stderr, exit 1, nothing written', async () => {
    const old = await createKey('changed meanwhile');
    const before = await keyCount();
    const elsewhereEnd = new Date(Date.now() + 3_600_000).toISOString();
    const result = await rotateWhile([old.id, '--overlap', '2h'], async () => {
      // What another rotation's transaction leaves: the old key ending at its overlap.
      const record = (await apiKeyRepository.findByHash(hashApiKey(old.key)))!;
      const other = { ...record, keyHash: hashApiKey(generateApiKey('server')), keyId: `${old.id}X` };
      expect(
        await apiKeyMaintenance.rotate(other, { keyHash: record.keyHash, readExpiresAt: null }, elsewhereEnd),
      ).toBe('rotated');
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `admin keys rotate: Key ${old.id} changed while it was being rotated (another rotation?): nothing was written; check keys list and run the command again.\n`,
    );
    // The other rotation's key only; the old key ends where that rotation put it.
    expect(await keyCount()).toBe(before + 1);
    expect((await apiKeyRepository.findByHash(hashApiKey(old.key)))?.expiresAt).toBe(elsewhereEnd);
  });

  it('a rotation that goes through writes the new key and the old end together', async () => {
    const old = await createKey('rotated');
    const rotated = await runAdminJson<{ id: string; previousExpiresAt: string }>([
      'keys',
      'rotate',
      old.id,
      '--overlap',
      '1h',
    ]);
    const stored = await apiKeyRepository.findById(rotated.id);
    expect(stored).toMatchObject({ name: 'rotated', scopes: ['read'], revoked: false, expiresAt: null });
    expect((await apiKeyRepository.findById(old.id))?.expiresAt).toBe(rotated.previousExpiresAt);
  });
});
