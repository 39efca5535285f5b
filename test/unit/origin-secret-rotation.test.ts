import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiEvent } from '@shared/http/api-types';
import { originVerifyMiddleware } from '@shared/http/middleware/origin-verify';
import {
  ORIGIN_SECRET_REFRESH_MIN_MS,
  ORIGIN_VERIFY_HEADER,
  ORIGIN_VERIFY_SECRET_ARN_ENV,
} from '@shared/http/origin-verify';
import { loopbackCredentials } from '@test/support/aws-loopback';
import { provideServices, resetServices } from '@shared/runtime/services';

/**
 * A loopback Secrets Manager (AWS JSON 1.1) holding one secret's stages, rotated as
 * `put-secret-value` does: the new value becomes AWSCURRENT, the old one AWSPREVIOUS.
 */
const stages: Record<string, string | undefined> = { AWSCURRENT: 'v1', AWSPREVIOUS: undefined };
let reads = 0;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    reads++;
    const { VersionStage } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { VersionStage: string };
    const value = stages[VersionStage];
    if (value === undefined) {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'no such version stage' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    res.end(JSON.stringify({ SecretString: value, VersionStages: [VersionStage] }));
  });
});
const rotate = (next: string) => {
  stages.AWSPREVIOUS = stages.AWSCURRENT;
  stages.AWSCURRENT = next;
};

const ARN = 'arn:aws:secretsmanager:us-east-1:111111111111:secret:origin';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  provideServices({
    originSecretClient: new SecretsManagerClient({
      endpoint,
      region: 'us-east-1',
      credentials: loopbackCredentials,
      maxAttempts: 1,
    }),
  });
  vi.stubEnv(ORIGIN_VERIFY_SECRET_ARN_ENV, ARN);
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  vi.unstubAllEnvs();
  resetServices('originSecretClient');
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

const middleware = originVerifyMiddleware();
/** One request as CloudFront sends it; true when the edge lets it through. */
const through = async (secret: string): Promise<boolean> => {
  const event = {
    headers: { [ORIGIN_VERIFY_HEADER]: secret },
    rawPath: '/k',
    rawQueryString: '',
    requestContext: { http: { method: 'GET', sourceIp: '130.176.0.1' } },
  } as unknown as ApiEvent;
  const answer = await middleware.before!({
    event,
    context: {},
    response: undefined,
    error: undefined,
    internal: {},
  } as never);
  return answer === undefined;
};

describe('origin secret rotation (the edge re-reads the secret before refusing)', () => {
  it('refuses no click while CloudFront locations switch to the new value, for two rotations in a row', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-26T12:00:00Z'), toFake: ['Date'] });
    const later = (ms: number) => vi.setSystemTime(Date.now() + ms);
    // Mixed traffic: each CloudFront location switches on its own, so old and new values interleave.
    const storm = async (values: string[], n: number) =>
      (await Promise.all(Array.from({ length: n }, (_, i) => through(values[i % values.length]!)))).filter((ok) => !ok)
        .length;

    expect(await through('v1')).toBe(true); // this instance caches v1
    later(30_000);
    rotate('v2'); // put-secret-value
    later(60_000); // cdk deploy -c originSecretRotation=...: CloudFront starts sending v2
    const readsBefore = reads;
    expect(await storm(['v1', 'v2'], 400)).toBe(0);
    // One shared re-read (both stages) served every request that carried the new value.
    expect(reads - readsBefore).toBe(2);

    later(120_000);
    rotate('v3'); // a second rotation the same day
    later(60_000);
    expect(await storm(['v2', 'v3'], 400)).toBe(0);
    expect(await through('v1')).toBe(false); // no longer current nor previous
  });

  it('re-reads at most once per interval for forged values, and still refuses them', async () => {
    vi.useFakeTimers({ now: new Date('2026-11-27T12:00:00Z'), toFake: ['Date'] });
    expect(await through(stages.AWSCURRENT!)).toBe(true);
    const readsBefore = reads;
    for (let i = 0; i < 100; i++) expect(await through(`forged-${i}`)).toBe(false);
    expect(reads - readsBefore).toBeLessThanOrEqual(2);
    vi.setSystemTime(Date.now() + ORIGIN_SECRET_REFRESH_MIN_MS);
    expect(await through('forged-again')).toBe(false);
    expect(reads - readsBefore).toBeLessThanOrEqual(4);
  });
});
