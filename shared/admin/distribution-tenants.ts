/**
 * Customer link domains on the CloudFront SaaS Manager front door (admin `domains add|verify|remove`).
 * One distribution tenant per customer domain: a DEEPLINK domain's tenant also holds its
 * `open.<domain>` host (the launch view's alternate host), so the pair shares one certificate.
 * Every AWS call goes through the official CloudFront client.
 */
import {
  CloudFrontClient,
  CreateDistributionTenantCommand,
  DeleteDistributionTenantCommand,
  GetConnectionGroupCommand,
  GetDistributionTenantByDomainCommand,
  GetDistributionTenantCommand,
  GetManagedCertificateDetailsCommand,
  UpdateDistributionTenantCommand,
  VerifyDnsConfigurationCommand,
  type DistributionTenant,
  type UpdateDistributionTenantRequest,
} from '@aws-sdk/client-cloudfront';
import pRetry, { AbortError } from 'p-retry';
import { ALTERNATE_LABEL } from '@shared/edge/host-resolver';
import { domainRepository } from '@shared/tenancy/domain-repository';
import type { DomainRecord } from '@shared/tenancy/tenancy-types';
import { workspaceRepository } from '@shared/tenancy/workspace-repository';
import { prefixedId } from '@shared/util/ids';
import type { AuditAction, ChangeOrigin } from '@shared/audit/audit-entry';
import { auditPutsFor } from '@shared/audit/audit-repository';
import { DomainFlowError, normalizeDomain } from './domain-name';

export { DomainFlowError, normalizeDomain };

/** The deployed front door the admin CLI talks to (stack outputs), or none for the local stack. */
export interface FrontDoorTarget {
  client: CloudFrontClient;
  distributionId: string;
  connectionGroupId: string;
  /** An operator's own wildcard certificate (`-c linkCertificateArn`): no managed certificates then. */
  linkCertificateArn?: string;
}

/** From the environment: EDGE_DISTRIBUTION_ID, EDGE_CONNECTION_GROUP_ID (stack outputs), LINK_CERTIFICATE_ARN. */
export const frontDoorFromEnv = (env = process.env): FrontDoorTarget | null => {
  const distributionId = env.EDGE_DISTRIBUTION_ID;
  const connectionGroupId = env.EDGE_CONNECTION_GROUP_ID;
  if (!distributionId && !connectionGroupId) return null;
  if (!distributionId || !connectionGroupId)
    throw new DomainFlowError(
      'Set both EDGE_DISTRIBUTION_ID and EDGE_CONNECTION_GROUP_ID (the stack outputs DistributionId and ConnectionGroupId).',
      'not_configured',
    );
  // CloudFront is a global service signed in us-east-1.
  const client = new CloudFrontClient({
    region: 'us-east-1',
    ...(env.CLOUDFRONT_ENDPOINT ? { endpoint: env.CLOUDFRONT_ENDPOINT } : {}),
  });
  return { client, distributionId, connectionGroupId, linkCertificateArn: env.LINK_CERTIFICATE_ARN || undefined };
};

/** The hostnames one tenant serves for a domain. */
export const distributionTenantHostnames = (domain: Pick<DomainRecord, 'domain' | 'usage'>): string[] =>
  domain.usage === 'DEEPLINK' ? [domain.domain, `${ALTERNATE_LABEL}${domain.domain}`] : [domain.domain];

/** CloudFront tenant names: letters, digits, dots and hyphens. */
export const distributionTenantName = (domain: Pick<DomainRecord, 'domain'>) => `link-${domain.domain}`.slice(0, 128);

export interface DnsRecord {
  type: 'CNAME' | 'TXT';
  name: string;
  value: string;
  why: string;
}

export const dnsRecordsFor = (
  domain: Pick<DomainRecord, 'domain' | 'usage'>,
  routingEndpoint: string,
  options: { challenge?: boolean } = {},
): DnsRecord[] => {
  const records: DnsRecord[] = distributionTenantHostnames(domain).map((name) => ({
    type: 'CNAME',
    name,
    value: routingEndpoint,
    why: name === domain.domain ? 'routes the link domain to the front door' : 'the launch view\'s "Open in app" host',
  }));
  if (options.challenge) {
    for (const name of distributionTenantHostnames(domain)) {
      records.push({
        type: 'TXT',
        name: `_cf-challenge.${name}`,
        value: routingEndpoint,
        why: 'proves control of a domain CloudFront already serves elsewhere',
      });
    }
  }
  return records;
};

const routingEndpointOf = async (target: FrontDoorTarget | null, localEdgeUrl: string): Promise<string> => {
  if (!target) return new URL(localEdgeUrl || 'http://127.0.0.1').host;
  const out = await target.client.send(new GetConnectionGroupCommand({ Identifier: target.connectionGroupId }));
  const endpoint = out.ConnectionGroup?.RoutingEndpoint;
  if (!endpoint)
    throw new DomainFlowError(
      `Connection group ${target.connectionGroupId} has no routing endpoint yet (still deploying?)`,
      'not_configured',
    );
  return endpoint;
};

const findDomainOrThrow = async (raw: string): Promise<DomainRecord> => {
  const hostname = normalizeDomain(raw);
  const host = await domainRepository.findHost(hostname);
  const domain = host ? await domainRepository.findById(host.workspaceId, host.domainId) : undefined;
  if (!domain)
    throw new DomainFlowError(
      `No domain ${hostname} (add it first: domains add ${hostname} --workspace <id>)`,
      'not_found',
    );
  return domain;
};

const errorName = (error: unknown) => (error as { name?: string }).name ?? '';

const distributionTenantByDomain = async (
  target: FrontDoorTarget,
  hostname: string,
): Promise<{ tenant: DistributionTenant; etag: string } | undefined> => {
  try {
    const out = await target.client.send(new GetDistributionTenantByDomainCommand({ Domain: hostname }));
    return out.DistributionTenant ? { tenant: out.DistributionTenant, etag: out.ETag ?? '' } : undefined;
  } catch (error) {
    if (errorName(error) === 'EntityNotFound') return undefined;
    throw error;
  }
};

/** What an update changes; everything else is sent back as CloudFront has it. */
type TenantChange = Partial<Pick<UpdateDistributionTenantRequest, 'Enabled' | 'ManagedCertificateRequest'>>;

/**
 * UpdateDistributionTenant is a full update (PUT): fields left out are reset, and `Domains` must
 * list at least one domain (CloudFront API reference, UpdateDistributionTenant). So each attempt
 * reads the tenant and its ETag afresh, sends its domains, customizations, parameters and
 * connection group back with the change, and a `PreconditionFailed` (someone changed the tenant
 * since the read) is retried with a new read, up to 4 attempts, by p-retry.
 */
export const updateDistributionTenant = async (
  target: FrontDoorTarget,
  tenantId: string,
  change: TenantChange,
): Promise<{ tenant: DistributionTenant; etag: string }> =>
  pRetry(
    async () => {
      const current = await target.client.send(new GetDistributionTenantCommand({ Identifier: tenantId }));
      const tenant = current.DistributionTenant;
      if (!tenant?.Domains?.length) throw new AbortError(`Distribution tenant ${tenantId} has no domains to keep`);
      try {
        const out = await target.client.send(
          new UpdateDistributionTenantCommand({
            Id: tenantId,
            IfMatch: current.ETag,
            DistributionId: tenant.DistributionId,
            Domains: tenant.Domains.map(({ Domain }) => ({ Domain })),
            ...(tenant.Customizations ? { Customizations: tenant.Customizations } : {}),
            ...(tenant.Parameters?.length ? { Parameters: tenant.Parameters } : {}),
            ...(tenant.ConnectionGroupId ? { ConnectionGroupId: tenant.ConnectionGroupId } : {}),
            Enabled: tenant.Enabled,
            ...change,
          }),
        );
        return { tenant: out.DistributionTenant ?? tenant, etag: out.ETag ?? '' };
      } catch (error) {
        if (errorName(error) === 'PreconditionFailed') throw error;
        throw new AbortError(error as Error);
      }
    },
    { retries: 3, minTimeout: 200, maxTimeout: 2_000 },
  );

/** The audit entry of a domain change, as a transaction item (none without an origin). */
export const domainAudit = (
  domain: DomainRecord,
  origin: ChangeOrigin | undefined,
  action: AuditAction,
  changedFields: string[] = [],
) => auditPutsFor(domain.workspaceId, origin, { action, resource: { type: 'domain', id: domain.id }, changedFields });

export interface AddDomainResult {
  domain: string;
  workspaceId: string;
  usage: DomainRecord['usage'];
  verified: false;
  dnsRecords: DnsRecord[];
}

/** Stores the domain unverified (domain + host record, one transaction) and says which DNS records to create. */
export const addDomain = async (
  input: { domain: string; workspaceId: string; usage: DomainRecord['usage'] },
  target: FrontDoorTarget | null,
  localEdgeUrl = '',
  origin?: ChangeOrigin,
): Promise<AddDomainResult> => {
  const hostname = normalizeDomain(input.domain);
  if (hostname.startsWith(ALTERNATE_LABEL))
    throw new DomainFlowError(`${hostname}: ${ALTERNATE_LABEL}<domain> hosts come with their DEEPLINK domain`);
  if (!(await workspaceRepository.findById(input.workspaceId)))
    throw new DomainFlowError(`No workspace ${input.workspaceId}`, 'not_found');
  const routingEndpoint = await routingEndpointOf(target, localEdgeUrl);
  const now = new Date().toISOString();
  const record: DomainRecord = {
    id: prefixedId('dom'),
    workspaceId: input.workspaceId,
    domain: hostname,
    verified: false,
    placeholder: null,
    expiredUrl: null,
    notFoundUrl: null,
    primary: false,
    archived: false,
    usage: input.usage,
    appId: null,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await domainRepository.create(record, domainAudit(record, origin, 'domain.added'));
  } catch (error) {
    if (errorName(error) === 'TransactionCanceledException')
      throw new DomainFlowError(`${hostname} is already a link domain (of this or another workspace)`, 'conflict');
    throw error;
  }
  return {
    domain: hostname,
    workspaceId: input.workspaceId,
    usage: input.usage,
    verified: false,
    dnsRecords: dnsRecordsFor(record, routingEndpoint),
  };
};

export type VerifyState =
  'verified' | 'dns-pending' | 'certificate-pending' | 'certificate-renewing' | 'domain-conflict';

export interface VerifyDomainResult {
  domain: string;
  verified: boolean;
  state: VerifyState;
  tenantId: string | null;
  /** What is still missing, in words an operator can act on. */
  missing: string[];
  dnsRecords: DnsRecord[];
}

const CERT_FAILED = new Set(['validation-timed-out', 'failed', 'expired', 'revoked', 'inactive']);

/**
 * Checks DNS, creates or updates the distribution tenant, follows its certificate, and flips the
 * domain to verified only when the certificate is issued (or the operator's own is in place).
 * Safe to run again: each run picks up where the last left off and says what is still missing.
 */
export const verifyDomain = async (
  raw: string,
  target: FrontDoorTarget | null,
  localEdgeUrl = '',
  origin?: ChangeOrigin,
): Promise<VerifyDomainResult> => {
  const domain = await findDomainOrThrow(raw);
  if (domain.archived) throw new DomainFlowError(`${domain.domain} was removed`, 'conflict');
  const routingEndpoint = await routingEndpointOf(target, localEdgeUrl);
  const hostnames = distributionTenantHostnames(domain);
  // Verifying a verified domain again changes nothing: no entry. The flip is conditional on the
  // domain being unverified, so of concurrent runs exactly one writes `domain.verified`.
  const markVerified = async () => {
    if (domain.verified || !origin) await domainRepository.setVerified(domain, true);
    else await domainRepository.flipToVerified(domain, domainAudit(domain, origin, 'domain.verified', ['verified']));
  };
  const result = (
    state: VerifyState,
    tenantId: string | null,
    missing: string[],
    challenge = false,
  ): VerifyDomainResult => ({
    domain: domain.domain,
    verified: state === 'verified',
    state,
    tenantId,
    missing,
    dnsRecords: dnsRecordsFor(domain, routingEndpoint, { challenge }),
  });

  if (!target) {
    // The local stack has no CloudFront, DNS or TLS: the edge answers any Host it is sent.
    await markVerified();
    return result('verified', null, []);
  }

  let found = await distributionTenantByDomain(target, domain.domain);
  if (!found) {
    try {
      const out = await target.client.send(
        new CreateDistributionTenantCommand({
          DistributionId: target.distributionId,
          ConnectionGroupId: target.connectionGroupId,
          Name: distributionTenantName(domain),
          Domains: hostnames.map((Domain) => ({ Domain })),
          Enabled: true,
          ...(target.linkCertificateArn
            ? { Customizations: { Certificate: { Arn: target.linkCertificateArn } } }
            : {
                ManagedCertificateRequest: {
                  ValidationTokenHost: 'cloudfront',
                  PrimaryDomainName: domain.domain,
                  CertificateTransparencyLoggingPreference: 'enabled',
                },
              }),
          Tags: {
            Items: [
              { Key: 'workspaceId', Value: domain.workspaceId },
              { Key: 'domainId', Value: domain.id },
            ],
          },
        }),
      );
      found = { tenant: out.DistributionTenant ?? {}, etag: out.ETag ?? '' };
    } catch (error) {
      const name = errorName(error);
      // CloudFront refuses a tenant (HTTP validation) until the domain's DNS points at it: nothing was created.
      if (name === 'InvalidArgument') {
        return result('dns-pending', null, [
          ...hostnames.map((h) => `DNS: ${h} must be a CNAME to ${routingEndpoint}`),
          `CloudFront said: ${(error as Error).message}`,
        ]);
      }
      if (name === 'CNAMEAlreadyExists' || name === 'EntityAlreadyExists') {
        return result(
          'domain-conflict',
          null,
          [
            `${domain.domain} is attached to another CloudFront resource: create the _cf-challenge TXT records, or detach it there`,
          ],
          true,
        );
      }
      throw error;
    }
  }
  const tenantId = found.tenant.Id ?? '';

  const dns = await target.client.send(new VerifyDnsConfigurationCommand({ Identifier: tenantId }));
  const badDns = (dns.DnsConfigurationList ?? []).filter((c) => c.Status !== 'valid-configuration');
  if (badDns.length > 0) {
    return result(
      'dns-pending',
      tenantId,
      badDns.map((c) => `DNS: ${c.Domain} must be a CNAME to ${routingEndpoint}${c.Reason ? ` (${c.Reason})` : ''}`),
    );
  }

  if (!target.linkCertificateArn) {
    const cert = await target.client.send(new GetManagedCertificateDetailsCommand({ Identifier: tenantId }));
    const status = cert.ManagedCertificateDetails?.CertificateStatus ?? 'pending-validation';
    if (CERT_FAILED.has(status)) {
      // Ask again: CloudFront validates over HTTP now that DNS is right.
      await updateDistributionTenant(target, tenantId, {
        ManagedCertificateRequest: {
          ValidationTokenHost: 'cloudfront',
          PrimaryDomainName: domain.domain,
          CertificateTransparencyLoggingPreference: 'enabled',
        },
      });
      return result('certificate-renewing', tenantId, [
        `certificate ${status}: requested a new one; run verify again in a few minutes`,
      ]);
    }
    if (status !== 'issued') {
      return result('certificate-pending', tenantId, [
        `certificate ${status}: CloudFront is validating over HTTP; run verify again in a few minutes`,
      ]);
    }
  }

  await markVerified();
  return result('verified', tenantId, []);
};

export interface RemoveDomainResult {
  domain: string;
  tenant: 'deleted' | 'disabled-delete-pending' | 'none';
  removed: true;
  missing: string[];
}

/**
 * Takes the tenant down (disabled, then deleted; CloudFront deletes only a disabled tenant) and
 * retires the domain: its links answer with the domain's not-found answer from then on.
 */
export const removeDomain = async (
  raw: string,
  target: FrontDoorTarget | null,
  origin?: ChangeOrigin,
): Promise<RemoveDomainResult> => {
  const domain = await findDomainOrThrow(raw);
  let tenant: RemoveDomainResult['tenant'] = 'none';
  const missing: string[] = [];
  if (target) {
    const found = await distributionTenantByDomain(target, domain.domain);
    if (found?.tenant.Id) {
      let etag = found.etag;
      if (found.tenant.Enabled !== false)
        etag = (await updateDistributionTenant(target, found.tenant.Id, { Enabled: false })).etag;
      try {
        await target.client.send(new DeleteDistributionTenantCommand({ Id: found.tenant.Id, IfMatch: etag }));
        tenant = 'deleted';
      } catch (error) {
        const name = errorName(error);
        if (name !== 'ResourceNotDisabled' && name !== 'PreconditionFailed' && name !== 'ResourceInUse') throw error;
        tenant = 'disabled-delete-pending';
        missing.push(
          `tenant ${found.tenant.Id} is disabled and still deploying: run remove again in a few minutes to delete it`,
        );
      }
    }
  }
  if (!domain.archived)
    await domainRepository.retire(
      domain,
      domainAudit(domain, origin, 'domain.removed', domain.verified ? ['archived', 'verified'] : ['archived']),
    );
  return { domain: domain.domain, tenant, removed: true, missing };
};
