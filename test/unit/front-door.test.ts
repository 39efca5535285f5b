import { describe, expect, it, beforeEach, afterEach, vi } from 'vitest';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { runViewerRequest, viewerRequestCode } from '@lib/front-door/viewer-request-code';
import type { ApiContext, ApiEvent } from '@shared/http/api-types';
import { edgeHandler } from '@shared/http/edge-handler';
import {
  ORIGIN_VERIFY_HEADER,
  ORIGIN_VERIFY_SECRET_ARN_ENV,
  ORIGIN_VERIFY_VALUES_ENV,
  acceptedOriginValues,
} from '@shared/http/origin-verify';
import {
  isThroughFrontDoor,
  parseViewerAddress,
  viewerCountry,
  viewerHost,
  viewerIp,
} from '@shared/http/trusted-viewer';
import { awsLoopback, loopbackCredentials } from '@test/support/aws-loopback';
import { provideServices } from '@shared/runtime/services';

const event = (headers: Record<string, string>): ApiEvent =>
  ({
    headers,
    rawPath: '/k',
    rawQueryString: '',
    requestContext: { http: { method: 'GET', sourceIp: '130.176.0.1' } },
  }) as unknown as ApiEvent;

describe('viewer-request CloudFront Function (cloudfront-js-2.0 restrictions)', () => {
  const request = (headers: Record<string, { value: string }>) => ({
    method: 'GET',
    uri: '/abc',
    querystring: {},
    headers,
    cookies: {},
  });

  it("copies the viewer's Host into x-forwarded-host, overwriting a client's own", () => {
    const out = runViewerRequest(
      request({ host: { value: 'Go.Acme.com' }, 'x-forwarded-host': { value: 'evil.example' } }),
    );
    expect(out.headers['x-forwarded-host']).toEqual({ value: 'go.acme.com' });
    expect(out.headers.host).toEqual({ value: 'Go.Acme.com' });
    expect(out.uri).toBe('/abc');
  });

  it('drops a client x-forwarded-host when there is no Host', () => {
    expect(
      runViewerRequest(request({ 'x-forwarded-host': { value: 'evil.example' } })).headers['x-forwarded-host'],
    ).toBeUndefined();
  });

  it('uses nothing the runtime lacks (no require, process, Buffer, timers) and stays under 10 KB', () => {
    const code = viewerRequestCode();
    expect(Buffer.byteLength(code)).toBeLessThan(10 * 1024);
    expect(code).not.toMatch(/\b(require|import|process|Buffer|setTimeout|fetch)\b\s*[(.]/);
    // The sandbox really lacks Node: code that reaches for it throws.
    expect(() => runViewerRequest(request({}), 'function handler(e) { return require("fs"); }')).toThrow();
    expect(() => runViewerRequest(request({}), 'function handler(e) { return process.env; }')).toThrow();
  });
});

describe('CloudFront-Viewer-Address', () => {
  it('parses ip:port, IPv6 unbracketed, from the last colon', () => {
    expect(parseViewerAddress('203.0.113.9:51234')).toBe('203.0.113.9');
    expect(parseViewerAddress('2001:db8::1:443')).toBe('2001:db8::1');
    expect(parseViewerAddress('2001:DB8:0:0:0:0:0:1:8080')).toBe('2001:db8:0:0:0:0:0:1');
    for (const bad of ['', 'nonsense', '203.0.113.9', '999.1.1.1:80', '1.2.3.4:port', 'a<b>:1'])
      expect(parseViewerAddress(bad)).toBeNull();
  });
});

describe('trusted viewer accessors and the origin-verify middleware', () => {
  beforeEach(() => {
    vi.stubEnv(ORIGIN_VERIFY_VALUES_ENV, 'current-secret,previous-secret');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  const handler = edgeHandler((e) =>
    Promise.resolve({
      statusCode: 200,
      body: JSON.stringify({
        host: viewerHost(e),
        ip: viewerIp(e),
        country: viewerCountry(e),
        trusted: isThroughFrontDoor(e),
      }),
    }),
  );
  const cdnHeaders = {
    host: 'x.lambda-url.eu-west-1.on.aws',
    'x-forwarded-host': 'go.acme.com',
    'cloudfront-viewer-country': 'br',
    'cloudfront-viewer-address': '198.51.100.7:3456',
  };

  it('answers 403 to a request straight to the origin (no secret, or a wrong one)', async () => {
    for (const headers of [cdnHeaders, { ...cdnHeaders, [ORIGIN_VERIFY_HEADER]: 'guess' }]) {
      const res = await handler(event(headers), {} as ApiContext);
      expect(res.statusCode).toBe(403);
      expect(res.body).toBe('Forbidden');
    }
  });

  it('trusts the CDN headers with the current or the previous secret (rotation without downtime)', async () => {
    for (const secret of ['current-secret', 'previous-secret']) {
      const res = await handler(event({ ...cdnHeaders, [ORIGIN_VERIFY_HEADER]: secret }), {} as ApiContext);
      expect(res.statusCode).toBe(200);
      expect(JSON.parse(res.body!)).toEqual({ host: 'go.acme.com', ip: '198.51.100.7', country: 'BR', trusted: true });
    }
  });

  it('without a front door configured, refuses nothing and trusts no CDN header', async () => {
    vi.stubEnv(ORIGIN_VERIFY_VALUES_ENV, undefined);
    const res = await handler(event(cdnHeaders), {} as ApiContext);
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body!)).toEqual({
      host: 'x.lambda-url.eu-west-1.on.aws',
      ip: '130.176.0.1',
      country: null,
      trusted: false,
    });
  });
});

describe('origin secret from Secrets Manager (wire)', () => {
  const loop = awsLoopback();

  it('asks for AWSCURRENT and AWSPREVIOUS with the official client and caches them', async () => {
    provideServices({
      originSecretClient: new SecretsManagerClient({
        endpoint: loop.endpoint,
        region: 'us-east-1',
        credentials: loopbackCredentials,
      }),
    });
    loop.reply = { status: 200, json: { SecretString: 'v-now', VersionStages: ['AWSCURRENT'] } };
    const env = { [ORIGIN_VERIFY_SECRET_ARN_ENV]: 'arn:aws:secretsmanager:us-east-1:1:secret:origin' };
    const values = await acceptedOriginValues(env, 1_000);
    expect(values).toEqual(['v-now', 'v-now']);
    const bodies = loop.seen.map((r) => JSON.parse(r.body) as { SecretId: string; VersionStage: string });
    expect(bodies.map((b) => b.VersionStage).sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
    expect(loop.seen[0]!.headers['x-amz-target']).toBe('secretsmanager.GetSecretValue');
    const before = loop.seen.length;
    await acceptedOriginValues(env, 2_000);
    expect(loop.seen.length).toBe(before);
  });

  it('fails loudly when the secret cannot be read (the edge answers 500, it never trusts by default)', async () => {
    provideServices({
      originSecretClient: new SecretsManagerClient({
        endpoint: loop.endpoint,
        region: 'us-east-1',
        credentials: loopbackCredentials,
        maxAttempts: 1,
      }),
    });
    loop.reply = {
      status: 400,
      headers: { 'x-amzn-errortype': 'ResourceNotFoundException' },
      json: { __type: 'ResourceNotFoundException', message: 'no version' },
    };
    const env = { [ORIGIN_VERIFY_SECRET_ARN_ENV]: 'arn:aws:secretsmanager:us-east-1:1:secret:origin' };
    await expect(acceptedOriginValues(env, 1_000)).rejects.toThrow(/no version/);
  });
});
