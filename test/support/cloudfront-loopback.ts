import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * A loopback CloudFront (REST-XML, API version 2020-05-31) for the SaaS Manager operations the
 * admin CLI calls, answering the real SDK client: a connection group, distribution tenants with
 * ETags, DNS verification and managed certificates. Tests set the world (DNS state, certificate
 * status, an error to inject) and read what was sent.
 */
/** The account the loopback's resources belong to (as in the synthesized test stack). */
export const ACCOUNT = '111111111111';
const NS = 'xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"';
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const tag = (name: string, value: string | number | boolean | undefined) =>
  value === undefined ? '' : `<${name}>${typeof value === 'string' ? esc(value) : value}</${name}>`;
const pick = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const pickAll = (xml: string, name: string) =>
  [...xml.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1]!);

export interface FakeTenant {
  id: string;
  name: string;
  domains: string[];
  enabled: boolean;
  etag: string;
  certificateArn?: string;
  managedCertificate: boolean;
}

export interface SeenCall {
  /** The IAM action the call is authorized as, and the resource it names (`*` where it names none). */
  action: string;
  resource: string;
  method: string;
  path: string;
  body: string;
  ifMatch?: string;
  authorization?: string;
}

export const cloudFrontLoopback = () => {
  const state = {
    endpoint: '',
    routingEndpoint: 'd1234abcd.cloudfront.net',
    connectionGroupId: 'cg_2abc',
    tenants: new Map<string, FakeTenant>(),
    /** Domains whose CNAME points at the routing endpoint. */
    dnsReady: new Set<string>(),
    certificateStatus: 'pending-validation' as string,
    /** Next CreateDistributionTenant answers this error (e.g. InvalidArgument) instead. */
    createError: undefined as { status: number; code: string; message: string } | undefined,
    deleteError: undefined as { status: number; code: string; message: string } | undefined,
    /** Another writer changes the tenant this many times just before the next updates land (ETag moves on). */
    concurrentChanges: 0,
    seen: [] as SeenCall[],
    reset() {
      this.tenants.clear();
      this.dnsReady.clear();
      this.certificateStatus = 'pending-validation';
      this.createError = undefined;
      this.deleteError = undefined;
      this.concurrentChanges = 0;
      this.seen = [];
    },
  };
  let counter = 0;

  const tenantXml = (t: FakeTenant) =>
    `<DistributionTenant ${NS}>${tag('Id', t.id)}${tag('DistributionId', 'E2DIST')}${tag('Name', t.name)}` +
    `<Domains>${t.domains.map((d) => `<member>${tag('Domain', d)}${tag('Status', state.dnsReady.has(d) ? 'active' : 'inactive')}</member>`).join('')}</Domains>` +
    (t.certificateArn
      ? `<Customizations><Certificate>${tag('Arn', t.certificateArn)}</Certificate></Customizations>`
      : '') +
    `${tag('ConnectionGroupId', state.connectionGroupId)}${tag('Enabled', t.enabled)}${tag('Status', 'Deployed')}</DistributionTenant>`;

  const send = (res: ServerResponse, status: number, xml: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/xml', 'x-amz-request-id': `req-${++counter}`, ...headers });
    res.end(xml ? `<?xml version="1.0" encoding="UTF-8"?>${xml}` : '');
  };
  const error = (res: ServerResponse, status: number, code: string, message: string) => {
    send(
      res,
      status,
      `<ErrorResponse ${NS}><Error><Type>Sender</Type>${tag('Code', code)}${tag('Message', message)}</Error><RequestId>req-${counter}</RequestId></ErrorResponse>`,
    );
  };
  const byDomain = (domain: string) => [...state.tenants.values()].find((t) => t.domains.includes(domain));

  const tenantArn = (id: string) => `arn:aws:cloudfront::${ACCOUNT}:distribution-tenant/${id}`;
  /** The Service Authorization Reference's action and resource for each call this loopback answers. */
  const iamRequestOf = (method: string, path: string, url: URL, body: string): { action: string; resource: string } => {
    const tenantPath = /^\/2020-05-31\/distribution-tenant\/([^/]+)$/.exec(path);
    if (path.startsWith('/2020-05-31/connection-group/'))
      return {
        action: 'cloudfront:GetConnectionGroup',
        resource: `arn:aws:cloudfront::${ACCOUNT}:connection-group/${decodeURIComponent(path.split('/').pop()!)}`,
      };
    if (path === '/2020-05-31/distribution-tenant' && method === 'GET') {
      const t = byDomain(url.searchParams.get('domain') ?? '');
      return { action: 'cloudfront:GetDistributionTenantByDomain', resource: tenantArn(t?.id ?? 'unknown') };
    }
    if (path === '/2020-05-31/distribution-tenant' && method === 'POST')
      return { action: 'cloudfront:CreateDistributionTenant', resource: '*' };
    if (tenantPath) {
      const action = {
        GET: 'GetDistributionTenant',
        PUT: 'UpdateDistributionTenant',
        DELETE: 'DeleteDistributionTenant',
      }[method];
      return { action: `cloudfront:${action ?? 'Unknown'}`, resource: tenantArn(decodeURIComponent(tenantPath[1]!)) };
    }
    if (path === '/2020-05-31/verify-dns-configuration')
      return { action: 'cloudfront:VerifyDnsConfiguration', resource: tenantArn(pick(body, 'Identifier') ?? '') };
    if (path.startsWith('/2020-05-31/managed-certificate/'))
      return {
        action: 'cloudfront:GetManagedCertificateDetails',
        resource: tenantArn(decodeURIComponent(path.split('/').pop()!)),
      };
    return { action: 'cloudfront:Unknown', resource: '*' };
  };

  const route = (req: IncomingMessage, res: ServerResponse, body: string) => {
    const url = new URL(req.url!, 'http://x');
    const path = url.pathname;
    const ifMatch = req.headers['if-match'];
    state.seen.push({
      ...iamRequestOf(req.method!, path, url, body),
      method: req.method!,
      path: `${path}${url.search}`,
      body,
      ifMatch,
      authorization: req.headers.authorization,
    });
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && (m = /^\/2020-05-31\/connection-group\/([^/]+)$/.exec(path))) {
      if (decodeURIComponent(m[1]!) !== state.connectionGroupId) {
        error(res, 404, 'EntityNotFound', 'No such connection group');
        return;
      }
      send(
        res,
        200,
        `<ConnectionGroup ${NS}>${tag('Id', state.connectionGroupId)}${tag('Name', 'links')}${tag('RoutingEndpoint', state.routingEndpoint)}${tag('Enabled', true)}</ConnectionGroup>`,
        { etag: 'CG1' },
      );
      return;
    }
    if (req.method === 'GET' && path === '/2020-05-31/distribution-tenant') {
      const t = byDomain(url.searchParams.get('domain') ?? '');
      if (t) send(res, 200, tenantXml(t), { etag: t.etag });
      else error(res, 404, 'EntityNotFound', 'The specified distribution tenant does not exist.');
      return;
    }
    if (req.method === 'POST' && path === '/2020-05-31/distribution-tenant') {
      if (state.createError) {
        const e = state.createError;
        state.createError = undefined;
        error(res, e.status, e.code, e.message);
        return;
      }
      const domains = pickAll(body, 'Domain');
      const t: FakeTenant = {
        id: `dt_${++counter}`,
        name: pick(body, 'Name') ?? '',
        domains,
        enabled: pick(body, 'Enabled') !== 'false',
        etag: `E${counter}`,
        certificateArn: pick(body, 'Arn'),
        managedCertificate: body.includes('<ManagedCertificateRequest>'),
      };
      state.tenants.set(t.id, t);
      send(res, 201, tenantXml(t), {
        etag: t.etag,
        location: `https://cloudfront.amazonaws.com/2020-05-31/distribution-tenant/${t.id}`,
      });
      return;
    }
    if ((m = /^\/2020-05-31\/distribution-tenant\/([^/]+)$/.exec(path))) {
      const t = state.tenants.get(decodeURIComponent(m[1]!));
      if (!t) {
        error(res, 404, 'EntityNotFound', 'The specified distribution tenant does not exist.');
        return;
      }
      if (req.method === 'GET') {
        send(res, 200, tenantXml(t), { etag: t.etag });
        return;
      }
      if (req.method === 'PUT' && state.concurrentChanges > 0) {
        state.concurrentChanges--;
        t.etag = `E${++counter}`;
      }
      if (ifMatch !== t.etag) {
        error(res, 412, 'PreconditionFailed', 'The If-Match version is missing or not valid.');
        return;
      }
      if (req.method === 'PUT') {
        // A full update, as CloudFront's: at least one domain, and what is left out is reset.
        const domains = pickAll(body, 'Domain');
        if (domains.length === 0) {
          error(res, 400, 'InvalidArgument', 'You must specify at least one domain for the distribution tenant.');
          return;
        }
        t.domains = domains;
        t.enabled = pick(body, 'Enabled') !== 'false';
        t.certificateArn = pick(body, 'Arn');
        if (body.includes('<ManagedCertificateRequest>')) state.certificateStatus = 'pending-validation';
        t.etag = `E${++counter}`;
        send(res, 200, tenantXml(t), { etag: t.etag });
        return;
      }
      if (req.method === 'DELETE') {
        if (state.deleteError) {
          error(res, state.deleteError.status, state.deleteError.code, state.deleteError.message);
          return;
        }
        if (t.enabled) {
          error(res, 409, 'ResourceNotDisabled', "The specified CloudFront resource hasn't been disabled yet.");
          return;
        }
        state.tenants.delete(t.id);
        res.writeHead(204).end();
        return undefined;
      }
    }
    if (req.method === 'POST' && path === '/2020-05-31/verify-dns-configuration') {
      const t = state.tenants.get(pick(body, 'Identifier') ?? '');
      if (!t) {
        error(res, 404, 'EntityNotFound', 'The specified distribution tenant does not exist.');
        return;
      }
      const items = t.domains
        .map(
          (d) =>
            `<DnsConfiguration>${tag('Domain', d)}${tag('Status', state.dnsReady.has(d) ? 'valid-configuration' : 'invalid-configuration')}${state.dnsReady.has(d) ? '' : tag('Reason', `${d} does not resolve to ${state.routingEndpoint}`)}</DnsConfiguration>`,
        )
        .join('');
      send(
        res,
        200,
        `<VerifyDnsConfigurationResult ${NS}><DnsConfigurationList>${items}</DnsConfigurationList></VerifyDnsConfigurationResult>`,
      );
      return;
    }
    if (req.method === 'GET' && (m = /^\/2020-05-31\/managed-certificate\/([^/]+)$/.exec(path))) {
      const t = state.tenants.get(decodeURIComponent(m[1]!));
      if (!t?.managedCertificate) {
        error(res, 404, 'EntityNotFound', 'No managed certificate');
        return;
      }
      send(
        res,
        200,
        `<ManagedCertificateDetails ${NS}>${tag('CertificateArn', `arn:aws:acm:us-east-1:111111111111:certificate/${t.id}`)}${tag('CertificateStatus', state.certificateStatus)}${tag('ValidationTokenHost', 'cloudfront')}</ManagedCertificateDetails>`,
      );
      return;
    }
    error(res, 400, 'InvalidRequest', `loopback: no route for ${req.method} ${path}`);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      route(req, res, Buffer.concat(chunks).toString('utf8'));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );
  return state;
};
