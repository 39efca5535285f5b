import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Template } from 'aws-cdk-lib/assertions';
import {
  CONSOLE_API_HEADERS,
  consoleViewerRequestCode,
  DEFAULT_SIGN_IN_RATE_LIMIT_PER_5_MIN,
} from '@lib/console-front-door';
import { runViewerRequest } from '@lib/front-door/viewer-request-code';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_SECRET_ARN_ENV } from '@shared/http/origin-verify';
import { routeTable } from '@shared/routes/route-table';
import { synthStack } from '@test/support/synth-stack';

// A built console (index.html) for the synth that uploads it; an empty folder for one that has none.
const built = mkdtempSync(path.join(tmpdir(), 'console-dist-'));
writeFileSync(
  path.join(built, 'index.html'),
  '<!doctype html><title>Console</title><script type="module" src="a.js"></script>',
);
const empty = path.join(built, 'none');
mkdirSync(empty);

type Resources = Record<string, { Type: string; Properties: any; DependsOn?: unknown }>;
const synth = (context: Record<string, string> = {}) => {
  const { stack, template } = synthStack({ consoleDist: built, ...context });
  const nested = Template.fromStack(stack.consoleFrontDoor).toJSON() as { Resources: Resources; Parameters: any };
  const parent = template.toJSON() as { Resources: Resources; Outputs: Record<string, any> };
  const ofType = (type: string) => Object.entries(nested.Resources).filter(([, r]) => r.Type === type);
  const one = (type: string) => {
    const found = ofType(type);
    expect(found, type).toHaveLength(1);
    return found[0]!;
  };
  return { stack, nested, parent, ofType, one };
};

const { stack, nested, parent, one } = synth();
const [distributionId, distribution] = one('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig;
const apiBehavior = config.CacheBehaviors.find((b: any) => b.PathPattern === '/v1/*');
const originOf = (behavior: any) => config.Origins.find((o: any) => o.Id === behavior.TargetOriginId);

describe('CDK: the web console distribution', () => {
  it('is a second, standard distribution (not tenant-only), in a nested stack, with the ConsoleUrl output', () => {
    expect(config.ConnectionMode).toBeUndefined();
    expect(config.Enabled).toBe(true);
    const parentDistributions = Object.values(parent.Resources).filter(
      (r) => r.Type === 'AWS::CloudFront::Distribution',
    );
    expect(parentDistributions.map((d) => d.Properties.DistributionConfig.ConnectionMode)).toEqual(['tenant-only']);
    const nestedStacks = Object.entries(parent.Resources).filter(([, r]) => r.Type === 'AWS::CloudFormation::Stack');
    expect(nestedStacks).toHaveLength(1);
    const [nestedId] = nestedStacks[0]!;
    const url = JSON.stringify(parent.Outputs.ConsoleUrl.Value);
    expect(url).toContain('https://');
    expect(url).toContain(nestedId);
    expect(url).toContain('DomainName');
    expect(url).toContain('/console/');
  });

  it('serves the files from a private, encrypted, TLS-only bucket that only this distribution may read (origin access control)', () => {
    const [bucketId, bucket] = one('AWS::S3::Bucket');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(
      bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault,
    ).toEqual({ SSEAlgorithm: 'AES256' });
    expect(bucket.Properties).not.toHaveProperty('WebsiteConfiguration');
    const [, oac] = one('AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const files = originOf(config.DefaultCacheBehavior);
    expect(files.DomainName).toEqual({ 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] });
    expect(files.OriginAccessControlId).toBeDefined();
    expect(files.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });

    const [, policy] = one('AWS::S3::BucketPolicy');
    const statements = policy.Properties.PolicyDocument.Statement as any[];
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    const allows = statements.filter((s) => s.Effect === 'Allow');
    expect(allows).toHaveLength(1);
    expect(allows[0]).toMatchObject({ Action: 's3:GetObject', Principal: { Service: 'cloudfront.amazonaws.com' } });
    expect(JSON.stringify(allows[0].Condition)).toContain('AWS:SourceArn');
    expect(JSON.stringify(allows[0].Condition)).toContain(distributionId);
  });

  it('uploads console/dist when it exists at synth (and invalidates /console/*); without it, no upload', () => {
    const [, deployment] = one('Custom::CDKBucketDeployment');
    expect(deployment.Properties.DestinationBucketKeyPrefix).toBe('console/');
    expect(deployment.Properties.DistributionPaths).toEqual(['/console/*']);
    expect(stack.consoleFrontDoor.deployment).toBeDefined();
    const bare = synth({ consoleDist: empty });
    expect(bare.ofType('Custom::CDKBucketDeployment')).toEqual([]);
    expect(bare.ofType('AWS::S3::Bucket')).toHaveLength(1);
  });

  it('routes /v1/* to the service HTTP API with the origin-verify secret, uncached, every method', () => {
    expect(apiBehavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      // CloudFront's managed CachingDisabled.
      CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad',
    });
    const api = originOf(apiBehavior);
    expect(api.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
    const endpointParameter = Object.keys(nested.Parameters).find((p) => p.includes('ServiceApi'));
    expect(endpointParameter).toBeDefined();
    expect(api.DomainName).toEqual({ 'Fn::Select': [2, { 'Fn::Split': ['/', { Ref: endpointParameter }] }] });
    expect(api.OriginCustomHeaders).toHaveLength(1);
    expect(api.OriginCustomHeaders[0].HeaderName).toBe(ORIGIN_VERIFY_HEADER);
    const value = JSON.stringify(api.OriginCustomHeaders[0].HeaderValue);
    expect(value).toContain('{{resolve:secretsmanager:');
    // The edge front door's secret, passed in from the service stack.
    expect(value).toContain('OriginVerifySecret');
  });

  it("forwards the headers the API reads, the viewer's address and the session cookie; never Host", () => {
    const [policyId, policy] = one('AWS::CloudFront::OriginRequestPolicy');
    expect(apiBehavior.OriginRequestPolicyId).toEqual({ Ref: policyId });
    const { HeadersConfig, CookiesConfig, QueryStringsConfig } = policy.Properties.OriginRequestPolicyConfig;
    expect(HeadersConfig.HeaderBehavior).toBe('whitelist');
    expect([...HeadersConfig.Headers].sort()).toEqual([...CONSOLE_API_HEADERS].sort());
    expect(HeadersConfig.Headers).toContain('CloudFront-Viewer-Address');
    expect(HeadersConfig.Headers).toContain('x-requested-with');
    expect(HeadersConfig.Headers.map((h: string) => h.toLowerCase())).not.toContain('host');
    expect(CookiesConfig).toEqual({ CookieBehavior: 'whitelist', Cookies: ['__Host-session'] });
    expect(QueryStringsConfig.QueryStringBehavior).toBe('all');
  });

  it('answers every path with the security headers: CSP without inline script, HSTS, no framing, Referrer-Policy, nosniff', () => {
    const [policyId, policy] = one('AWS::CloudFront::ResponseHeadersPolicy');
    for (const behavior of [config.DefaultCacheBehavior, ...config.CacheBehaviors])
      expect(behavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    const security = policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    const csp: string = security.ContentSecurityPolicy.ContentSecurityPolicy;
    expect(security.ContentSecurityPolicy.Override).toBe(true);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(security.StrictTransportSecurity).toMatchObject({
      AccessControlMaxAgeSec: 730 * 24 * 3600,
      IncludeSubdomains: true,
      Override: true,
    });
    expect(security.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(security.ReferrerPolicy).toEqual({ ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true });
    expect(security.ContentTypeOptions).toEqual({ Override: true });
  });

  it('limits sign-ins (POST /v1/sessions) per address with a WAF rate-based rule answering 429 in the envelope', () => {
    const [aclId, acl] = one('AWS::WAFv2::WebACL');
    expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    expect(acl.Properties.DefaultAction).toEqual({ Allow: {} });
    const [rule] = acl.Properties.Rules as any[];
    const rate = rule.Statement.RateBasedStatement;
    expect(rate).toMatchObject({
      Limit: DEFAULT_SIGN_IN_RATE_LIMIT_PER_5_MIN,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'IP',
    });
    const matches = rate.ScopeDownStatement.AndStatement.Statements.map((s: any) => s.ByteMatchStatement);
    expect(matches).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          FieldToMatch: { Method: {} },
          SearchString: 'POST',
          PositionalConstraint: 'EXACTLY',
        }),
        expect.objectContaining({
          FieldToMatch: { UriPath: {} },
          SearchString: '/v1/sessions',
          PositionalConstraint: 'EXACTLY',
        }),
      ]),
    );
    expect(rule.Action.Block.CustomResponse.ResponseCode).toBe(429);
    const body = acl.Properties.CustomResponseBodies[rule.Action.Block.CustomResponse.CustomResponseBodyKey];
    expect(JSON.parse(body.Content)).toMatchObject({ success: false, error: { code: 'rate_limited' } });
  });

  it('takes the sign-in limit from -c consoleSignInRateLimitPer5Min and drops the web ACL with -c edgeWaf=false', () => {
    const custom = synth({ consoleSignInRateLimitPer5Min: '20' });
    const [, acl] = custom.one('AWS::WAFv2::WebACL');
    expect(acl.Properties.Rules[0].Statement.RateBasedStatement.Limit).toBe(20);
    const off = synth({ edgeWaf: 'false' });
    expect(off.ofType('AWS::WAFv2::WebACL')).toEqual([]);
    const [, offDistribution] = off.one('AWS::CloudFront::Distribution');
    expect(offDistribution.Properties.DistributionConfig.WebACLId).toBeUndefined();
    expect(() => synthStack({ consoleDist: built, consoleSignInRateLimitPer5Min: '5' })).toThrow(
      /consoleSignInRateLimitPer5Min/,
    );
  });

  it('gives every v1 function the origin secret (to trust CloudFront-Viewer-Address behind the console), read-only', () => {
    const json = parent;
    const secretId = Object.entries(json.Resources).find(([, r]) => r.Type === 'AWS::SecretsManager::Secret')![0];
    const v1 = [
      ...new Set(routeTable.filter((r) => r.api === 'service' && r.path.startsWith('/v1/')).map((r) => r.handler)),
    ];
    expect(v1).toContain('sessions-create');
    for (const handler of v1) {
      const fn = stack.functions.get(handler)!;
      const fnId = stack.getLogicalId(fn.node.defaultChild as never);
      expect(json.Resources[fnId]!.Properties.Environment.Variables[ORIGIN_VERIFY_SECRET_ARN_ENV], handler).toEqual({
        Ref: secretId,
      });
      const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
      const statements = Object.values(json.Resources)
        .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((x: any) => x.Ref === roleId))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as any[]);
      const secretStatements = statements.filter((s) => JSON.stringify(s.Action).includes('secretsmanager:'));
      expect(secretStatements, handler).toEqual([
        expect.objectContaining({
          Action: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
          Resource: { Ref: secretId },
        }),
      ]);
    }
  });

  it('keeps the service stack far from CloudFormation’s 500 resources (the console is nested)', () => {
    expect(Object.keys(parent.Resources).length).toBeLessThan(450);
    expect(Object.keys(nested.Resources).length).toBeLessThan(30);
  });
});

describe("the console's viewer-request function", () => {
  // The deployed text, run in the cloudfront-js-2.0-like sandbox the edge's function is tested in.
  const run = (uri: string) =>
    runViewerRequest({ uri, method: 'GET', headers: {}, querystring: {}, cookies: {} }, consoleViewerRequestCode()) as {
      uri?: string;
      statusCode?: number;
    };

  it('sends / to /console/ and answers page paths with the app; files and the API pass through', () => {
    expect(run('/')).toMatchObject({ statusCode: 302, headers: { location: { value: '/console/' } } });
    expect(run('/console')).toMatchObject({ statusCode: 302 });
    expect(run('/console/').uri).toBe('/console/index.html');
    expect(run('/console/links').uri).toBe('/console/index.html');
    expect(run('/console/links/lnk_01ABC').uri).toBe('/console/index.html');
    expect(run('/console/assets/index-3f2a.js').uri).toBe('/console/assets/index-3f2a.js');
    expect(run('/console/favicon.svg').uri).toBe('/console/favicon.svg');
    expect(run('/elsewhere').uri).toBe('/elsewhere');
  });
});
