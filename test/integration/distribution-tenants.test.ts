import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';
import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import {
  addDomain,
  DomainFlowError,
  removeDomain,
  verifyDomain,
  type FrontDoorTarget,
} from '@shared/admin/distribution-tenants';
import { clearHostCache } from '@shared/edge/host-resolver';
import { handleLinkRequest } from '@shared/edge/handle-click';
import { createShortLink } from '@shared/links/create-link';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { listDomains } from '@shared/tenancy/list-domains';
import { listDomainsQuerySchema } from '@shared/schemas/list-schemas';
import type { ApiEvent } from '@shared/http/api-types';
import { loopbackCredentials } from '@test/support/aws-loopback';
import { ACCOUNT, cloudFrontLoopback, type SeenCall } from '@test/support/cloudfront-loopback';
import { synthStack } from '@test/support/synth-stack';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { TEST_ORIGIN } from '@test/support/test-origin';

const cf = cloudFrontLoopback();
let tenant: BootstrapResult;
let target: FrontDoorTarget;
let n = 0;
const newDomain = () => `go${++n}-${Date.now().toString(36)}.acme-links.com`;

beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://x', edgeUrl: 'http://y' });
  target = {
    client: new CloudFrontClient({
      endpoint: cf.endpoint,
      region: 'us-east-1',
      credentials: loopbackCredentials,
      maxAttempts: 1,
    }),
    distributionId: 'E2DIST',
    connectionGroupId: cf.connectionGroupId,
  };
});
beforeEach(() => {
  cf.reset();
});

const domainRecord = async (hostname: string) => {
  const host = await domainRepository.findHost(hostname);
  return host ? domainRepository.findById(host.workspaceId, host.domainId) : undefined;
};

describe('admin domains add (wire: CloudFront REST-XML)', () => {
  it('stores the domain unverified and prints the CNAME to the connection group routing endpoint', async () => {
    const domain = newDomain();
    const added = await addDomain(
      { domain: domain.toUpperCase(), workspaceId: tenant.workspaceId, usage: 'SHORTLINK' },
      target,
    );
    expect(added).toEqual({
      domain,
      workspaceId: tenant.workspaceId,
      usage: 'SHORTLINK',
      verified: false,
      dnsRecords: [{ type: 'CNAME', name: domain, value: cf.routingEndpoint, why: expect.any(String) }],
    });
    expect(cf.seen.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /2020-05-31/connection-group/${cf.connectionGroupId}`,
    ]);
    expect(cf.seen[0]!.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/cloudfront\/aws4_request/,
    );
    expect(await domainRecord(domain)).toMatchObject({ verified: false, usage: 'SHORTLINK', archived: false });
    // GET /v1/domains shows it unverified.
    const listed = await listDomains(tenant.workspaceId, listDomainsQuerySchema.parse({ domain }));
    expect(listed.data).toEqual([expect.objectContaining({ domain, verified: false })]);
  });

  it('gives a DEEPLINK domain its open.<domain> host in the same records', async () => {
    const domain = newDomain();
    const added = await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'DEEPLINK' }, target);
    expect(added.dnsRecords.map((r) => `${r.type} ${r.name}`)).toEqual([`CNAME ${domain}`, `CNAME open.${domain}`]);
  });

  it('refuses a taken domain, a bad name, an unknown workspace and a bare open. host', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    await expect(addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target)).rejects.toThrow(
      /already a link domain/,
    );
    await expect(
      addDomain({ domain: 'not a domain', workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target),
    ).rejects.toThrow(DomainFlowError);
    await expect(
      addDomain({ domain: newDomain(), workspaceId: 'ws_nope', usage: 'SHORTLINK' }, target),
    ).rejects.toThrow(/No workspace/);
    await expect(
      addDomain({ domain: `open.${newDomain()}`, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target),
    ).rejects.toThrow(/open\./);
  });
});

describe('admin domains verify (wire)', () => {
  it('keeps the domain pending when CloudFront refuses the tenant because DNS is not ready (nothing half-created)', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.createError = {
      status: 400,
      code: 'InvalidArgument',
      message: `The domain ${domain} must point to the connection group routing endpoint.`,
    };
    const result = await verifyDomain(domain, target);
    expect(result).toMatchObject({ verified: false, state: 'dns-pending', tenantId: null });
    expect(result.missing[0]).toBe(`DNS: ${domain} must be a CNAME to ${cf.routingEndpoint}`);
    expect(cf.tenants.size).toBe(0);
    expect((await domainRecord(domain))!.verified).toBe(false);
  });

  it('creates the tenant with a managed certificate (HTTP validation), follows it, and verifies only once it is issued; re-runs are safe', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'DEEPLINK' }, target);
    cf.dnsReady.add(domain);
    cf.dnsReady.add(`open.${domain}`);

    const first = await verifyDomain(domain, target);
    expect(first).toMatchObject({ verified: false, state: 'certificate-pending' });
    expect(first.missing[0]).toMatch(/certificate pending-validation/);
    expect(cf.tenants.size).toBe(1);
    const created = cf.seen.find((c) => c.method === 'POST' && c.path === '/2020-05-31/distribution-tenant')!;
    expect(created.body).toContain('<DistributionId>E2DIST</DistributionId>');
    expect(created.body).toContain(`<ConnectionGroupId>${cf.connectionGroupId}</ConnectionGroupId>`);
    expect(created.body).toContain(
      `<Domains><member><Domain>${domain}</Domain></member><member><Domain>open.${domain}</Domain></member></Domains>`,
    );
    expect(created.body).toContain('<ManagedCertificateRequest><ValidationTokenHost>cloudfront</ValidationTokenHost>');
    expect((await domainRecord(domain))!.verified).toBe(false);

    cf.certificateStatus = 'issued';
    cf.seen = [];
    const second = await verifyDomain(domain, target);
    expect(second).toMatchObject({ verified: true, state: 'verified', tenantId: first.tenantId, missing: [] });
    // The existing tenant is reused, not created again.
    expect(cf.seen.filter((c) => c.method === 'POST' && c.path === '/2020-05-31/distribution-tenant')).toEqual([]);
    expect((await domainRecord(domain))!.verified).toBe(true);
  });

  it('says which DNS records are still wrong once the tenant exists', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'DEEPLINK' }, target);
    cf.dnsReady.add(domain);
    await verifyDomain(domain, target);
    cf.dnsReady.delete(domain);
    const result = await verifyDomain(domain, target);
    expect(result.state).toBe('dns-pending');
    expect(result.missing).toEqual([
      `DNS: ${domain} must be a CNAME to ${cf.routingEndpoint} (${domain} does not resolve to ${cf.routingEndpoint})`,
      `DNS: open.${domain} must be a CNAME to ${cf.routingEndpoint} (open.${domain} does not resolve to ${cf.routingEndpoint})`,
    ]);
  });

  it('asks for a new certificate when validation timed out (with the tenant ETag) and stays pending', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.dnsReady.add(domain);
    await verifyDomain(domain, target);
    cf.certificateStatus = 'validation-timed-out';
    const result = await verifyDomain(domain, target);
    expect(result).toMatchObject({ verified: false, state: 'certificate-renewing' });
    const created = cf.seen.find((c) => c.method === 'POST' && c.path === '/2020-05-31/distribution-tenant')!;
    const update = cf.seen.find((c) => c.method === 'PUT')!;
    expect(update.body).toContain('<ManagedCertificateRequest>');
    // The update carries the ETag CloudFront returned for the tenant (optimistic concurrency).
    expect(update.ifMatch).toMatch(/^E\d+$/);
    expect(created).toBeDefined();
    expect(cf.certificateStatus).toBe('pending-validation');
    expect((await domainRecord(domain))!.verified).toBe(false);
  });

  it('asks for the _cf-challenge TXT records when the domain is attached elsewhere in CloudFront', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.createError = {
      status: 409,
      code: 'CNAMEAlreadyExists',
      message: 'One or more of the CNAMEs you provided are already associated with a different resource.',
    };
    const result = await verifyDomain(domain, target);
    expect(result.state).toBe('domain-conflict');
    expect(result.dnsRecords).toContainEqual(
      expect.objectContaining({ type: 'TXT', name: `_cf-challenge.${domain}`, value: cf.routingEndpoint }),
    );
  });

  it('with the operator certificate (linkCertificateArn): no managed certificate, verified once DNS is right', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.dnsReady.add(domain);
    const arn = 'arn:aws:acm:us-east-1:111111111111:certificate/wildcard';
    const result = await verifyDomain(domain, { ...target, linkCertificateArn: arn });
    expect(result.verified).toBe(true);
    const created = cf.seen.find((c) => c.method === 'POST' && c.path === '/2020-05-31/distribution-tenant')!;
    expect(created.body).toContain(`<Customizations><Certificate><Arn>${arn}</Arn></Certificate></Customizations>`);
    expect(created.body).not.toContain('ManagedCertificateRequest');
    expect(cf.seen.some((c) => c.path.startsWith('/2020-05-31/managed-certificate'))).toBe(false);
  });

  it('fails loudly on an unknown domain and on CloudFront errors it cannot act on', async () => {
    await expect(verifyDomain(newDomain(), target)).rejects.toThrow(/No domain/);
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.createError = {
      status: 403,
      code: 'AccessDenied',
      message: 'User is not authorized to perform cloudfront:CreateDistributionTenant',
    };
    await expect(verifyDomain(domain, target)).rejects.toThrow(/not authorized/);
    expect((await domainRecord(domain))!.verified).toBe(false);
  });
});

describe('admin domains remove (wire)', () => {
  const click = (host: string, key: string) =>
    handleLinkRequest(
      {
        headers: {
          host,
          'user-agent':
            'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
        },
        rawPath: `/${key}`,
        rawQueryString: '',
        pathParameters: { key },
        requestContext: { http: { method: 'GET', sourceIp: '198.51.100.1' } },
      } as unknown as ApiEvent,
      'req-1',
    );

  it('disables then deletes the tenant and retires the domain: its links answer the domain not-found answer', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.dnsReady.add(domain);
    cf.certificateStatus = 'issued';
    await verifyDomain(domain, target);
    const link = await createShortLink(tenant.workspaceId, { url: 'https://example.com/before', domain }, TEST_ORIGIN);
    clearHostCache();
    expect((await click(domain, link.key)).statusCode).toBe(302);

    const removed = await removeDomain(domain, target);
    expect(removed).toEqual({ domain, tenant: 'deleted', removed: true, missing: [] });
    expect(cf.tenants.size).toBe(0);
    const calls = cf.seen.filter((c) => c.method === 'PUT' || c.method === 'DELETE');
    expect(calls.map((c) => c.method)).toEqual(['PUT', 'DELETE']);
    expect(calls[0]!.body).toContain('<Enabled>false</Enabled>');
    expect(calls[1]!.ifMatch).toBeDefined();
    expect(await domainRecord(domain)).toMatchObject({ archived: true, verified: false });

    clearHostCache();
    const after = await click(domain, link.key);
    expect(after.statusCode).toBe(404);
    expect(after.headers?.Location ?? after.headers?.location).toBeUndefined();
  });

  it('reports a tenant that is disabled but not deletable yet, and completes on the next run', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.dnsReady.add(domain);
    await verifyDomain(domain, target);
    cf.deleteError = { status: 409, code: 'ResourceInUse', message: 'The tenant is still deploying.' };
    const first = await removeDomain(domain, target);
    expect(first.tenant).toBe('disabled-delete-pending');
    expect(first.missing[0]).toMatch(/run remove again/);
    cf.deleteError = undefined;
    const second = await removeDomain(domain, target);
    expect(second.tenant).toBe('deleted');
    expect(cf.tenants.size).toBe(0);
  });
});

describe('tenant updates are full updates with a fresh ETag', () => {
  it("sends the tenant's domains (and certificate) back with every update, as UpdateDistributionTenant requires", async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'DEEPLINK' }, target);
    cf.dnsReady.add(domain);
    cf.dnsReady.add(`open.${domain}`);
    await verifyDomain(domain, target);
    cf.certificateStatus = 'failed';
    expect((await verifyDomain(domain, target)).state).toBe('certificate-renewing');
    await removeDomain(domain, target);
    const puts = cf.seen.filter((c) => c.method === 'PUT');
    expect(puts).toHaveLength(2);
    for (const put of puts) {
      expect(put.body).toContain(`<Domain>${domain}</Domain>`);
      expect(put.body).toContain(`<Domain>open.${domain}</Domain>`);
      expect(put.body).toContain('<DistributionId>E2DIST</DistributionId>');
    }
    // Each update read the tenant just before (GetDistributionTenant) and sent that ETag.
    for (const put of puts) {
      const read = cf.seen[cf.seen.indexOf(put) - 1]!;
      expect(read.action).toBe('cloudfront:GetDistributionTenant');
    }
  });

  it('retries an update refused with PreconditionFailed (another writer changed the tenant) with a new read', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'SHORTLINK' }, target);
    cf.dnsReady.add(domain);
    await verifyDomain(domain, target);
    cf.concurrentChanges = 2;
    const removed = await removeDomain(domain, target);
    expect(removed.tenant).toBe('deleted');
    const puts = cf.seen.filter((c) => c.method === 'PUT');
    expect(puts).toHaveLength(3);
    expect(new Set(puts.map((p) => p.ifMatch)).size).toBe(3);
    expect(cf.tenants.size).toBe(0);
  });
});

describe('the operator policy the stack outputs allows every call the domain commands make', () => {
  type Intrinsic = string | { Ref?: string; 'Fn::Join'?: [string, Intrinsic[]]; 'Fn::GetAtt'?: [string, string] };
  const { template, stack } = synthStack();
  const json = template.toJSON() as { Resources: Record<string, any> };
  const [, policy] = Object.entries(json.Resources).find(([, r]) => r.Type === 'AWS::IAM::ManagedPolicy')!;
  /** The stack's intrinsic values as a deployment in account 111111111111 would resolve them. */
  const resolve = (value: Intrinsic): string => {
    if (typeof value === 'string') return value;
    if (value.Ref === 'AWS::Partition') return 'aws';
    if (value.Ref === 'AWS::AccountId') return ACCOUNT;
    if (value['Fn::Join']) return value['Fn::Join'][1].map(resolve).join(value['Fn::Join'][0]);
    const getAtt = value['Fn::GetAtt'];
    if (getAtt) {
      const type = json.Resources[getAtt[0]]?.Type as string;
      if (type === 'AWS::CloudFront::ConnectionGroup' && getAtt[1] === 'Arn')
        return `arn:aws:cloudfront::${ACCOUNT}:connection-group/${cf.connectionGroupId}`;
      if (type === 'AWS::CloudFront::Distribution' && getAtt[1] === 'Id') return 'E2DIST';
    }
    throw new Error(`cannot resolve ${JSON.stringify(value)} in ${stack.stackName}`);
  };
  const statements = (policy.Properties.PolicyDocument.Statement as any[]).map((st) => ({
    ...st,
    Resource: [st.Resource].flat().map(resolve),
  }));
  const identityPolicies = [{ name: 'AdminDomainsPolicy', policy: { Version: '2012-10-17', Statement: statements } }];
  const simulate = async (call: Pick<SeenCall, 'action' | 'resource'>) => {
    const response = await runSimulation(
      {
        identityPolicies,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          action: call.action,
          principal: `arn:aws:iam::${ACCOUNT}:user/operator`,
          resource: { accountId: ACCOUNT, resource: call.resource },
          contextVariables: {},
        },
      },
      {},
    );
    if (response.resultType === 'error') throw new Error(JSON.stringify(response.errors));
    return response.overallResult;
  };

  it('is evaluated offline with the Service Authorization Reference (a call it does not grant is denied)', async () => {
    expect(
      await simulate({
        action: 'cloudfront:DeleteDistribution',
        resource: `arn:aws:cloudfront::${ACCOUNT}:distribution/E2DIST`,
      }),
    ).toBe('ImplicitlyDenied');
    // The grant the policy used to have: CreateDistributionTenant on ARNs, which IAM never matches.
    const before = [
      {
        name: 'before',
        policy: {
          Version: '2012-10-17',
          Statement: [
            {
              Effect: 'Allow',
              Action: 'cloudfront:CreateDistributionTenant',
              Resource: `arn:aws:cloudfront::${ACCOUNT}:distribution-tenant/*`,
            },
          ],
        },
      },
    ];
    const denied = await runSimulation(
      {
        identityPolicies: before,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        request: {
          action: 'cloudfront:CreateDistributionTenant',
          principal: `arn:aws:iam::${ACCOUNT}:user/operator`,
          resource: { accountId: ACCOUNT, resource: '*' },
          contextVariables: {},
        },
      },
      {},
    );
    expect(denied.resultType !== 'error' && denied.overallResult).toBe('ImplicitlyDenied');
  });

  it('allows each call of add, verify (managed certificate renewal included) and remove', async () => {
    const domain = newDomain();
    await addDomain({ domain, workspaceId: tenant.workspaceId, usage: 'DEEPLINK' }, target);
    cf.createError = { status: 400, code: 'InvalidArgument', message: 'DNS does not point at CloudFront' };
    await verifyDomain(domain, target);
    cf.dnsReady.add(domain);
    cf.dnsReady.add(`open.${domain}`);
    await verifyDomain(domain, target);
    cf.certificateStatus = 'validation-timed-out';
    await verifyDomain(domain, target);
    cf.certificateStatus = 'issued';
    expect((await verifyDomain(domain, target)).verified).toBe(true);
    cf.concurrentChanges = 1;
    await removeDomain(domain, target);

    const calls = [...new Map(cf.seen.map((c) => [`${c.action} ${c.resource}`, c])).values()];
    expect(new Set(calls.map((c) => c.action))).toEqual(
      new Set([
        'cloudfront:GetConnectionGroup',
        'cloudfront:GetDistributionTenantByDomain',
        'cloudfront:CreateDistributionTenant',
        'cloudfront:VerifyDnsConfiguration',
        'cloudfront:GetManagedCertificateDetails',
        'cloudfront:GetDistributionTenant',
        'cloudfront:UpdateDistributionTenant',
        'cloudfront:DeleteDistributionTenant',
      ]),
    );
    const decisions = await Promise.all(calls.map(async (c) => `${c.action} ${c.resource} ${await simulate(c)}`));
    expect(decisions).toEqual(calls.map((c) => `${c.action} ${c.resource} Allowed`));
  });
});

describe('the admin CLI (npm run -s admin -- domains ...) against the loopback CloudFront', () => {
  const exec = promisify(execFile);
  const tsx = path.join(projectRoot, 'node_modules', '.bin', 'tsx');
  const admin = async (args: string[]) => {
    const env = {
      ...(process.env as Record<string, string>),
      EDGE_DISTRIBUTION_ID: 'E2DIST',
      EDGE_CONNECTION_GROUP_ID: cf.connectionGroupId,
      CLOUDFRONT_ENDPOINT: cf.endpoint,
      AWS_ACCESS_KEY_ID: loopbackCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: loopbackCredentials.secretAccessKey,
    };
    try {
      const { stdout } = await exec(tsx, ['scripts/admin.ts', ...args], { cwd: projectRoot, env, timeout: 60_000 });
      return { code: 0, out: stdout };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, out: e.stdout + e.stderr };
    }
  };

  it('adds (JSON), reports pending verification with exit code 3, then verifies, and refuses bad input with exit code 1', async () => {
    const domain = newDomain();
    const added = await admin([
      'domains',
      'add',
      domain,
      '--workspace',
      tenant.workspaceId,
      '--usage',
      'deeplink',
      '--json',
    ]);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.out)).toMatchObject({
      domain,
      verified: false,
      usage: 'DEEPLINK',
      dnsRecords: [{ type: 'CNAME', name: domain, value: cf.routingEndpoint }, { name: `open.${domain}` }],
    });

    cf.createError = { status: 400, code: 'InvalidArgument', message: 'DNS does not point at CloudFront' };
    const pending = await admin(['domains', 'verify', domain]);
    expect(pending.code).toBe(3);
    expect(pending.out).toContain(`DNS: ${domain} must be a CNAME to ${cf.routingEndpoint}`);

    cf.dnsReady.add(domain);
    cf.dnsReady.add(`open.${domain}`);
    cf.certificateStatus = 'issued';
    const verified = await admin(['domains', 'verify', domain, '--json']);
    expect(verified.code).toBe(0);
    expect(JSON.parse(verified.out)).toMatchObject({ domain, verified: true, state: 'verified' });

    const bad = await admin(['domains', 'add', 'not a domain', '--workspace', tenant.workspaceId]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('is not a domain name');
  }, 120_000);
});
