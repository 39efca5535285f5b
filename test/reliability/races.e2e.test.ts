import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

let t: TestStack;
const figures: Record<string, unknown> = {};
beforeAll(async () => {
  t = await startTestStack();
});
afterAll(async () => {
  await t?.stop();
  const dir = path.join(projectRoot, 'test', 'artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'races-report.json'), JSON.stringify(figures, null, 2));
});

const countBy = (statuses: number[]) => statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {});

describe('races through the HTTP API', () => {
  it('50 parallel creates of one domain+key: exactly one 201, 49 slug_taken', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        http(t.baseUrl, 'POST', '/v1/links', { headers: { 'api-key': t.tenantA.serverKey }, json: { url: `https://example.com/${i}`, domain: t.tenantA.domain, key: 'race-key' } }),
      ),
    );
    figures.sameSlug = countBy(results.map((r) => r.status));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const conflicts = results.filter((r) => r.status === 409);
    expect(conflicts).toHaveLength(49);
    for (const r of conflicts) expect(r.body.error.code).toBe('slug_taken');
  });

  it('20 parallel creates with one Idempotency-Key: one link; the rest replay it or are in progress', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        http(t.baseUrl, 'POST', '/v1/links', {
          headers: { 'api-key': t.tenantA.serverKey, 'idempotency-key': 'race-idem' },
          json: { url: 'https://example.com/idem', domain: t.tenantA.domain },
        }),
      ),
    );
    figures.idempotency = countBy(results.map((r) => r.status));
    const ok = results.filter((r) => r.status === 201);
    expect(new Set(ok.map((r) => r.body.data.id)).size).toBe(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe('idempotency_request_in_progress');
    }
    const replay = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { 'api-key': t.tenantA.serverKey, 'idempotency-key': 'race-idem' },
      json: { url: 'https://example.com/idem', domain: t.tenantA.domain },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data.id).toBe(ok[0]!.body.data.id);
  });
});
