/**
 * The post-deploy smoke test's steps, the same against a deployed stack and the local stack: a
 * throwaway workspace, links and a deep link, a click through the front door with the link
 * domain's Host, the counters, a client click, a legacy create, analytics (or its 503 before
 * Athena has data), the raw export, that a request straight to an edge function URL (bypassing
 * CloudFront, so without the origin secret) is refused, then, whatever failed, everything it made
 * erased: the throwaway workspace with the workspace erasure (`admin delete-workspace`: its links,
 * keys, domains, apps and lake data), the link it wrote on the click domain archived.
 */
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { deleteWorkspace } from '@shared/admin/delete-workspace';
import type { LakeStore } from '@shared/admin/lake-store';
import type { ChangeOrigin } from '@shared/audit/audit-entry';
import { createShortLink } from '@shared/links/create-link';
import { linkRepository } from '@shared/links/link-repository';
import { archiveLink } from '@shared/links/patch-link';
import * as z from '@shared/schemas/zod-mini';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';

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
  /**
   * The edge origins reached without the front door: deployed, the edge function URLs (stack
   * output EdgeFunctionUrls); locally, the local stack's origin. Each must answer 403.
   */
  directOrigins: string[];
  /** Where the workspace erasure removes the throwaway workspace's events. */
  lake: LakeStore;
}

export interface SmokeOptions {
  /** Called with each step's result as it is known. */
  log?: (r: StepResult) => void;
  /** For tests of the smoke test itself: this step fails without running (cleanup still runs). */
  failStep?: string;
}

/** The cleanup step's name: it always runs last, whatever failed before it. */
export const CLEANUP_STEP = 'clean up: erase the throwaway workspace, archive the click-domain link';
/** The direct-access step's name. */
export const DIRECT_ACCESS_STEP = 'a request straight to the edge origin (bypassing CloudFront) is refused: 403';

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

/**
 * Runs every step; later steps that need an earlier one's output fail when it failed. The cleanup
 * step runs last in a `finally`, so a failing step (or an exception) never leaves the throwaway
 * workspace, its keys or its links behind.
 */
export const runSmoke = async (target: SmokeTarget, options: SmokeOptions = {}): Promise<StepResult[]> => {
  const log = options.log ?? (() => {});
  const results: StepResult[] = [];
  const step = async <T>(name: string, run: () => Promise<{ value: T; detail: string }>): Promise<T | undefined> => {
    try {
      if (options.failStep === name) throw new Error('failed on purpose (a test of the smoke test)');
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
  const tenant = await step<BootstrapResult>('provision a throwaway workspace', async () => {
    const t = await bootstrapTenant({
      baseUrl: target.baseUrl,
      edgeUrl: target.clickOrigin,
      name: `smoke ${new Date().toISOString()}`,
    });
    return { value: t, detail: t.workspaceId };
  });
  if (!tenant) return results;
  let archiveOnDomain: (() => Promise<void>) | undefined;
  try {
    await smokeSteps(target, tenant, step, (undo) => {
      archiveOnDomain = undo;
    });
  } finally {
    await step(CLEANUP_STEP, async () => {
      // The throwaway workspace and everything in it (keys, links, domains, apps, lake data).
      const erased = await deleteWorkspace(tenant.workspaceId, target.lake);
      await archiveOnDomain?.();
      if (await workspaceRepository.findById(tenant.workspaceId, true))
        throw new Error(`workspace ${tenant.workspaceId} is still in the table`);
      if (await domainRepository.findHost(tenant.domain))
        throw new Error(`domain ${tenant.domain} is still in the table`);
      return {
        value: true,
        detail: `${tenant.workspaceId}: ${erased.totalItemsErased} items erased${archiveOnDomain ? ', click-domain link archived' : ''}`,
      };
    });
  }
  return results;
};

type Step = <T>(name: string, run: () => Promise<{ value: T; detail: string }>) => Promise<T | undefined>;

/** The steps between provisioning and cleanup; `onDomainLink` gets the undo of the link written on the click domain. */
/** The smoke test writes this link directly (no request): its audit entries name the operator running it. */
const SMOKE_ORIGIN: ChangeOrigin = {
  actor: { type: 'operator', name: `smoke test (${process.env.USER ?? 'unknown user'})` },
  requestId: null,
  ip: null,
  userAgent: null,
};

const smokeSteps = async (
  target: SmokeTarget,
  tenant: BootstrapResult,
  step: Step,
  onDomainLink: (undo: () => Promise<void>) => void,
) => {
  const expectStatus = (what: string, got: number, ok: number[], body?: unknown) => {
    if (!ok.includes(got))
      throw new Error(`${what}: HTTP ${got}, expected ${ok.join('/')}: ${JSON.stringify(body).slice(0, 300)}`);
  };
  const server = { 'api-key': tenant.serverKey };

  const link = await step('create a short link (POST /v1/links)', async () => {
    const res = await api(target.baseUrl, 'POST', '/v1/links', server, {
      url: 'https://example.com/smoke',
      domain: tenant.domain,
    });
    expectStatus('create', res.status, [201], res.body);
    const data = created('create', res.body);
    if (!data.key) throw new Error(`create: no key in ${JSON.stringify(data)}`);
    return { value: { id: data.id, key: data.key }, detail: data.shortUrl ?? data.id };
  });

  await step('create a deep link (POST /v1/deep-links)', async () => {
    const res = await api(target.baseUrl, 'POST', '/v1/deep-links', server, { deepLinkAppId: tenant.deepLinkApp.id });
    expectStatus('create', res.status, [201], res.body);
    const data = created('create', res.body);
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
    const onDomain = await createShortLink(
      host.workspaceId,
      { url: 'https://example.com/smoke', domain: target.clickDomain },
      SMOKE_ORIGIN,
    );
    onDomainLink(async () => {
      await archiveLink(host.workspaceId, 'SHORTLINK', onDomain.id, SMOKE_ORIGIN);
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

  await step(DIRECT_ACCESS_STEP, async () => {
    if (target.directOrigins.length === 0) throw new Error('no edge origin to try (stack output EdgeFunctionUrls)');
    const answers: string[] = [];
    for (const origin of target.directOrigins) {
      // A click path, the Host the origin itself answers to, no origin-verify header.
      const url = new URL(origin);
      const res = await clickRequest(origin, url.hostname, '/smoke-direct', { 'cloudfront-viewer-country': 'NL' });
      if (res.status !== 403) throw new Error(`${origin}: HTTP ${res.status}, expected 403`);
      answers.push(`${url.host} 403`);
    }
    return { value: true, detail: answers.join(', ') };
  });
};
