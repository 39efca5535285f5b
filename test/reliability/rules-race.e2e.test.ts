import { beforeAll, describe, expect, it } from 'vitest';
import { edgeRequest, readLakeEvents } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { startTestStack, type TestStack } from '@test/support/test-stack';

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let t: TestStack;
beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});

const VERSIONS = 12;
const CLICKS = 180;

/** Version k of the link's rules and variants: every id and URL names k, so a mix of versions shows. */
const version = (k: number) => ({
  rules: [
    { id: `q${String(k)}`, conditions: [{ type: 'query', param: 'v' }], url: `https://example.com/v${String(k)}/q` },
    {
      id: `de${String(k)}`,
      conditions: [{ type: 'language', value: 'de' }],
      url: `https://example.com/v${String(k)}/de`,
    },
  ],
  variants: [
    { id: `x${String(k)}`, url: `https://example.com/v${String(k)}/x`, weight: 50 },
    { id: `y${String(k)}`, url: `https://example.com/v${String(k)}/y`, weight: 50 },
  ],
});

/** The version a decided id or a destination URL names (NaN when it names none). */
const versionOfId = (id: string | null) => Number(/(\d+)$/.exec(id ?? '')?.[1] ?? Number.NaN);
const versionOfUrl = (url: string | null | undefined) => Number(/\/v(\d+)\//.exec(url ?? '')?.[1] ?? Number.NaN);

describe('rules and variants replaced while clicks flow', () => {
  it('every click uses one whole version: its destination, and the rule or variant it records, come from one PATCH', async () => {
    const headers = { 'api-key': t.tenantA.serverKey };
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers,
      json: { url: 'https://example.com/fallback', domain: t.tenantA.domain, ...version(0) },
    });
    expect(created.status, created.text).toBe(201);
    const { id, key } = created.body.data;

    // Three kinds of click: the first rule, the second rule, a variant (a fresh visitor each time).
    const kinds: Array<{ query: string; headers: Record<string, string> }> = [
      { query: '?v=1', headers: {} },
      { query: '', headers: { 'accept-language': 'de-DE' } },
      { query: '', headers: {} },
    ];
    const click = async (i: number) => {
      const kind = kinds[i % kinds.length]!;
      const res = await edgeRequest(t.edgeUrl, {
        host: t.tenantA.domain,
        path: `/${String(key)}${kind.query}`,
        headers: {
          'user-agent': DESKTOP,
          'cloudfront-viewer-address': `198.51.${String(100 + (i % 100))}.${String(i % 250)}:443`,
          ...kind.headers,
        },
      });
      return { status: res.status, location: res.headers.location as string | undefined };
    };
    // In waves: each version's PATCH runs while a wave of clicks is in flight.
    const perWave = CLICKS / VERSIONS;
    const answers: Array<{ status: number; location: string | undefined }> = [];
    const patchStatuses: number[] = [];
    for (let k = 1; k <= VERSIONS; k++) {
      const wave = Array.from({ length: perWave }, (_, j) => click((k - 1) * perWave + j));
      const patched = http(t.baseUrl, 'PATCH', `/v1/links/${String(id)}`, { headers, json: version(k) });
      const [waveAnswers, res] = await Promise.all([Promise.all(wave), patched]);
      answers.push(...waveAnswers);
      patchStatuses.push(res.status);
    }
    await t.idle();

    expect(patchStatuses).toEqual(Array.from({ length: VERSIONS }, () => 200));
    expect(answers.every((a) => a.status === 302)).toBe(true);
    for (const { location } of answers) {
      expect(location, location).toMatch(/^https:\/\/example\.com\/v\d+\/(q|de|x|y)$/);
      expect(versionOfUrl(location)).toBeLessThanOrEqual(VERSIONS);
    }

    const events = (await readLakeEvents()).filter((e) => e.linkId === id && e.eventType === 'click');
    expect(events).toHaveLength(CLICKS);
    for (const event of events) {
      const decidedBy = event.ruleId ?? event.variantId;
      // Exactly one of them decided, and it is of the same version as the destination used.
      expect((event.ruleId === null) !== (event.variantId === null), JSON.stringify(event)).toBe(true);
      expect(versionOfId(decidedBy), JSON.stringify(event)).toBe(versionOfUrl(event.resolvedDestinationUrl));
      expect(event.resolvedDestinationUrl?.endsWith(`/${String(decidedBy).replace(/\d+$/, '')}`)).toBe(true);
    }
    // Once the PATCHes are done (and a hot link's cached record has aged out), the last version answers.
    const last = await (async () => {
      for (let attempt = 0; attempt < 40; attempt++) {
        const res = await edgeRequest(t.edgeUrl, {
          host: t.tenantA.domain,
          path: `/${String(key)}?v=1`,
          headers: { 'user-agent': DESKTOP },
        });
        if (res.headers.location === `https://example.com/v${String(VERSIONS)}/q`) return res.headers.location;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return null;
    })();
    expect(last).toBe(`https://example.com/v${String(VERSIONS)}/q`);
  }, 120_000);
});
