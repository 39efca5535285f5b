/**
 * The post-deploy smoke test's steps, the same against a deployed stack and the local stack: a
 * throwaway workspace, links and a deep link, a click through the front door with the link
 * domain's Host, the counters, a client click, a legacy create, analytics (or its 503 before
 * Athena has data), the raw export, then everything it made archived.
 */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { createShortLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { archiveLink } from '@shared/links/patch-link';
import * as z from '@shared/schemas/zod-mini';
import { domainRepository } from '@shared/tenancy/domain-repository';

/** How long a click may take to reach Link.clicks deployed (docs/event-stream.md): the consumer's alarm threshold. */
const COUNTER_BOUND_MS = 60_000;

export interface SmokeTarget {
  baseUrl: string;
  /** Where clicks go: `https://<verified domain>` deployed, the local edge locally. */
  clickOrigin: string;
  /** The Host a click carries (the link domain); deployed, the verified domain. */
  clickDomain?: string;
  /** Extra headers the click sends (locally: the viewer country the CDN would add). */
  clickHeaders?: Record<string, string>;
}

export interface StepResult {
  step: string;
  pass: boolean;
  detail: string;
}

const DESKTOP =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

const api = async (baseUrl: string, method: string, path: string, headers: Record<string, string>, json?: unknown) => {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
    redirect: 'manual',
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
};

/** What a create answers (`{"data":{...}}`), checked: a step fails on any other body. */
const createdSchema = z.object({
  data: z.object({ id: z.string(), key: z.optional(z.string()), shortUrl: z.optional(z.string()) }),
});
const created = (what: string, body: unknown) => {
  const parsed = z.safeParse(createdSchema, body);
  if (!parsed.success) throw new Error(`${what}: unexpected body ${JSON.stringify(body).slice(0, 300)}`);
  return parsed.data.data;
};

/** One GET with a chosen Host header (fetch cannot set Host), redirects not followed. */
const clickRequest = (origin: string, host: string, path: string, headers: Record<string, string>) =>
  new Promise<{ status: number; location?: string }>((resolve, reject) => {
    const url = new URL(path, origin);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'GET',
        headers: { host: url.port ? `${host}:${url.port}` : host, 'user-agent': DESKTOP, ...headers },
        timeout: 20_000,
        servername: host,
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('click timed out')));
    req.on('error', reject);
    req.end();
  });

/** Runs every step; later steps that need an earlier one's output are skipped (failed) when it failed. */
export const runSmoke = async (target: SmokeTarget, log: (r: StepResult) => void = () => {}): Promise<StepResult[]> => {
  const results: StepResult[] = [];
  const cleanup: Array<() => Promise<void>> = [];
  const step = async <T>(name: string, run: () => Promise<{ value: T; detail: string }>): Promise<T | undefined> => {
    try {
      const { value, detail } = await run();
      const r = { step: name, pass: true, detail };
      results.push(r);
      log(r);
      return value;
    } catch (error) {
      const r = { step: name, pass: false, detail: (error as Error).message };
      results.push(r);
      log(r);
      return undefined;
    }
  };
  const expectStatus = (what: string, got: number, ok: number[], body?: unknown) => {
    if (!ok.includes(got))
      throw new Error(`${what}: HTTP ${got}, expected ${ok.join('/')}: ${JSON.stringify(body).slice(0, 300)}`);
  };

  const tenant = await step<BootstrapResult>('provision a throwaway workspace', async () => {
    const t = await bootstrapTenant({
      baseUrl: target.baseUrl,
      edgeUrl: target.clickOrigin,
      name: `smoke ${new Date().toISOString()}`,
    });
    return { value: t, detail: t.workspaceId };
  });
  if (!tenant) return results;
  const server = { 'api-key': tenant.serverKey };

  const link = await step('create a short link (POST /v1/links)', async () => {
    const res = await api(target.baseUrl, 'POST', '/v1/links', server, {
      url: 'https://example.com/smoke',
      domain: tenant.domain,
    });
    expectStatus('create', res.status, [201], res.body);
    const data = created('create', res.body);
    cleanup.push(async () => {
      await api(target.baseUrl, 'DELETE', `/v1/links/${data.id}`, server);
    });
    if (!data.key) throw new Error(`create: no key in ${JSON.stringify(data)}`);
    return { value: { id: data.id, key: data.key }, detail: data.shortUrl ?? data.id };
  });

  await step('create a deep link (POST /v1/deep-links)', async () => {
    const res = await api(target.baseUrl, 'POST', '/v1/deep-links', server, { deepLinkAppId: tenant.deepLinkApp.id });
    expectStatus('create', res.status, [201], res.body);
    const data = created('create', res.body);
    cleanup.push(async () => {
      await api(target.baseUrl, 'DELETE', `/v1/deep-links/${data.id}`, server);
    });
    return { value: data.id, detail: data.id };
  });

  // The click: deployed, on the verified domain (the throwaway workspace's own domains are not on
  // CloudFront), with a link written for that domain's workspace and archived afterwards.
  const clickLink = await step('a link on the click domain', async () => {
    if (!target.clickDomain) {
      if (!link) throw new Error('no link to click');
      return { value: { id: link.id, key: link.key, domain: tenant.domain }, detail: `${tenant.domain}/${link.key}` };
    }
    const host = await domainRepository.findHost(target.clickDomain);
    if (!host) throw new Error(`${target.clickDomain} is not a link domain of this stack (domains add / verify)`);
    const onDomain = await createShortLink(host.workspaceId, {
      url: 'https://example.com/smoke',
      domain: target.clickDomain,
    });
    cleanup.push(async () => {
      await archiveLink(host.workspaceId, 'SHORTLINK', onDomain.id);
    });
    return {
      value: { id: onDomain.id, key: onDomain.key, domain: target.clickDomain },
      detail: `${target.clickDomain}/${onDomain.key}`,
    };
  });

  await step('click through the front door: 302 to the destination', async () => {
    if (!clickLink) throw new Error('no link to click');
    const res = await clickRequest(
      target.clickOrigin,
      clickLink.domain,
      `/${clickLink.key}`,
      target.clickHeaders ?? {},
    );
    if (res.status !== 302 || res.location !== 'https://example.com/smoke')
      throw new Error(`HTTP ${res.status} -> ${res.location ?? 'no Location'}`);
    return { value: true, detail: `302 -> ${res.location}` };
  });

  await step('click counters moved (within 60 s)', async () => {
    if (!clickLink) throw new Error('no link');
    const started = Date.now();
    for (;;) {
      const record = await linkRepository.findById(clickLink.id, true);
      if (record && record.clicks >= 1)
        return { value: true, detail: `clicks ${record.clicks} after ${((Date.now() - started) / 1000).toFixed(1)} s` };
      if (Date.now() - started > COUNTER_BOUND_MS)
        throw new Error(`clicks = ${record?.clicks} after ${COUNTER_BOUND_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  });

  await step('client click (POST /v1/client/attribution/click)', async () => {
    if (!link) throw new Error('no link');
    const res = await api(
      target.baseUrl,
      'POST',
      '/v1/client/attribution/click',
      {
        'x-publishable-key': tenant.publishableKeys.ios.key,
        'x-ios-bundle-id': tenant.publishableKeys.ios.bundleId,
        'user-agent': IPHONE,
      },
      { linkId: link.id },
    );
    expectStatus('client click', res.status, [200, 201], res.body);
    return { value: true, detail: `HTTP ${res.status}` };
  });

  await step('legacy create (POST /api/mobile/link/create)', async () => {
    const form = new FormData();
    form.set('url', 'https://example.com/smoke-legacy');
    form.set('title', 'smoke');
    const res = await fetch(`${target.baseUrl}/api/mobile/link/create`, {
      method: 'POST',
      headers: { 'api-key': tenant.mobileKey },
      body: form,
    });
    const text = await res.text();
    expectStatus('legacy create', res.status, [200, 201], text);
    return { value: true, detail: `HTTP ${res.status}` };
  });

  await step('analytics (GET /v1/analytics/links/{id}: 200, or 503 before Athena has data)', async () => {
    if (!link) throw new Error('no link');
    const res = await api(target.baseUrl, 'GET', `/v1/analytics/links/${link.id}?range=24h&traffic=all`, server);
    expectStatus('analytics', res.status, [200, 503], res.body);
    return { value: true, detail: `HTTP ${res.status}` };
  });

  await step('raw export (GET /v1/analytics/events)', async () => {
    const res = await api(target.baseUrl, 'GET', '/v1/analytics/events?range=24h&limit=5', server);
    expectStatus('export', res.status, [200, 503], res.body);
    return { value: true, detail: `HTTP ${res.status}` };
  });

  await step('archive what the smoke test made', async () => {
    for (const undo of cleanup) await undo();
    return { value: true, detail: `${cleanup.length} items` };
  });
  return results;
};
