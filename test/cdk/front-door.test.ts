import { describe, expect, it } from 'vitest';
import { App } from 'aws-cdk-lib';
import { LinkServiceStack } from '@lib/link-service-stack';
import { EDGE_ORIGIN_HEADERS, WELL_KNOWN_TTL } from '@lib/edge-front-door';
import { viewerRequestCode } from '@lib/front-door/viewer-request-code';
import { VISITOR_COOKIE } from '@shared/edge/visitor-cookie';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_SECRET_ARN_ENV } from '@shared/http/origin-verify';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const json = template.toJSON() as { Resources: Record<string, any>; Outputs: Record<string, any> };
const ofType = (type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);
const one = (type: string) => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const [, distribution] = one('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig;

describe('CDK: the CloudFront SaaS Manager front door', () => {
  it('is a multi-tenant distribution (tenant-only) without the properties such a distribution rejects', () => {
    expect(config.ConnectionMode).toBe('tenant-only');
    expect(config).not.toHaveProperty('IPV6Enabled');
    expect(config).not.toHaveProperty('PriceClass');
    expect(config).not.toHaveProperty('Aliases');
    expect(config.ViewerCertificate).toEqual({ CloudFrontDefaultCertificate: true });
  });

  it('has a connection group (IPv6 lives there) whose routing endpoint is an output', () => {
    const [id, group] = one('AWS::CloudFront::ConnectionGroup');
    expect(group.Properties).toMatchObject({ Enabled: true, Ipv6Enabled: true });
    expect(json.Outputs.RoutingEndpoint.Value).toEqual({ 'Fn::GetAtt': [id, 'RoutingEndpoint'] });
    expect(json.Outputs.ConnectionGroupId.Value).toEqual({ 'Fn::GetAtt': [id, 'Id'] });
    expect(json.Outputs.DistributionId).toBeDefined();
  });

  it('runs the viewer-request CloudFront Function (cloudfront-js-2.0) on every behavior', () => {
    const [fnId, fn] = one('AWS::CloudFront::Function');
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    expect(fn.Properties.FunctionCode).toBe(viewerRequestCode());
    expect(fn.Properties.AutoPublish).toBe(true);
    for (const behavior of [config.DefaultCacheBehavior, ...config.CacheBehaviors]) {
      expect(behavior.FunctionAssociations).toEqual([
        { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [fnId, 'FunctionARN'] } },
      ]);
      expect(behavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    }
  });

  it('forwards x-forwarded-host, the viewer country and address, the query string and the visitor cookie, never Host', () => {
    const [policyId, policy] = one('AWS::CloudFront::OriginRequestPolicy');
    const { HeadersConfig, QueryStringsConfig, CookiesConfig } = policy.Properties.OriginRequestPolicyConfig;
    // The A/B-test visitor cookie, and no other, reaches the edge.
    expect(CookiesConfig).toEqual({ CookieBehavior: 'whitelist', Cookies: [VISITOR_COOKIE] });
    expect(VISITOR_COOKIE).toBe('lv_vid');
    expect(HeadersConfig.HeaderBehavior).toBe('whitelist');
    expect(HeadersConfig.Headers).toEqual([...EDGE_ORIGIN_HEADERS]);
    for (const h of [
      'x-forwarded-host',
      'CloudFront-Viewer-Country',
      'CloudFront-Viewer-Address',
      'User-Agent',
      'Referer',
      'Accept-Language',
    ])
      expect(HeadersConfig.Headers).toContain(h);
    expect(HeadersConfig.Headers.map((h: string) => h.toLowerCase())).not.toContain('host');
    expect(QueryStringsConfig.QueryStringBehavior).toBe('all');
    for (const behavior of [config.DefaultCacheBehavior, ...config.CacheBehaviors])
      expect(behavior.OriginRequestPolicyId).toEqual({ 'Fn::GetAtt': [policyId, 'Id'] });
  });

  it('never caches clicks; caches /.well-known/* briefly, keyed by the viewer host', () => {
    expect(config.DefaultCacheBehavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    const wellKnown = config.CacheBehaviors.filter((b: any) => b.PathPattern.startsWith('.well-known/'));
    expect(wellKnown.map((b: any) => b.PathPattern).sort()).toEqual([
      '.well-known/apple-app-site-association',
      '.well-known/assetlinks.json',
    ]);
    const [cacheId, cache] = one('AWS::CloudFront::CachePolicy');
    expect(cache.Properties.CachePolicyConfig).toMatchObject({
      DefaultTTL: WELL_KNOWN_TTL.toSeconds(),
      MaxTTL: WELL_KNOWN_TTL.toSeconds(),
    });
    expect(cache.Properties.CachePolicyConfig.ParametersInCacheKeyAndForwardedToOrigin.HeadersConfig.Headers).toEqual([
      'x-forwarded-host',
    ]);
    for (const b of wellKnown) expect(b.CachePolicyId).toEqual({ 'Fn::GetAtt': [cacheId, 'Id'] });
    const beacon = config.CacheBehaviors.find((b: any) => b.PathPattern === 'api/launch-view-events');
    expect(beacon.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(beacon.AllowedMethods).toContain('POST');
  });

  it('sends the origin-verify secret from Secrets Manager to the function-URL origins, and gives the edge read access to it', () => {
    const [secretId] = one('AWS::SecretsManager::Secret');
    expect(config.Origins).toHaveLength(3);
    for (const origin of config.Origins) {
      expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only' });
      expect(JSON.stringify(origin.DomainName)).toContain('FunctionUrl');
      expect(origin.OriginCustomHeaders).toHaveLength(1);
      expect(origin.OriginCustomHeaders[0].HeaderName).toBe(ORIGIN_VERIFY_HEADER);
      expect(JSON.stringify(origin.OriginCustomHeaders[0].HeaderValue)).toContain(`{{resolve:secretsmanager:`);
      expect(JSON.stringify(origin.OriginCustomHeaders[0].HeaderValue)).toContain(secretId);
    }
    for (const handler of ['edge-links', 'edge-launch-events', 'edge-well-known']) {
      const fnId = stack.getLogicalId(stack.functions.get(handler)!.node.defaultChild as never);
      expect(json.Resources[fnId].Properties.Environment.Variables[ORIGIN_VERIFY_SECRET_ARN_ENV]).toEqual({
        Ref: secretId,
      });
      const roleId = stack.getLogicalId(stack.functions.get(handler)!.role.node.defaultChild as never);
      const statements = ofType('AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
      expect(statements).toContainEqual(
        expect.objectContaining({
          Action: expect.arrayContaining(['secretsmanager:GetSecretValue']),
          Resource: { Ref: secretId },
        }),
      );
    }
    // The service API's v1 functions read it too, only to trust the console distribution's viewer
    // address (test/cdk/console.test.ts); they refuse nothing without it.
    const linksCreate = stack.getLogicalId(stack.functions.get('links-create')!.node.defaultChild as never);
    expect(json.Resources[linksCreate].Properties.Environment.Variables[ORIGIN_VERIFY_SECRET_ARN_ENV]).toEqual({
      Ref: secretId,
    });
  });

  it('associates a WAFv2 web ACL: managed common + known bad inputs + IP reputation, a per-IP rate rule, plain 403/429 answers', () => {
    const [aclId, acl] = one('AWS::WAFv2::WebACL');
    expect(config.WebACLId).toEqual({ 'Fn::GetAtt': [aclId, 'Arn'] });
    expect(acl.Properties.Scope).toBe('CLOUDFRONT');
    const rules = acl.Properties.Rules as any[];
    const groups = rules
      .filter((r) => r.Statement.ManagedRuleGroupStatement)
      .map((r) => r.Statement.ManagedRuleGroupStatement.Name);
    expect(groups.sort()).toEqual([
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesCommonRuleSet',
      'AWSManagedRulesKnownBadInputsRuleSet',
    ]);
    const rate = rules.find((r) => r.Statement.RateBasedStatement);
    expect(rate.Statement.RateBasedStatement).toMatchObject({
      Limit: 2000,
      AggregateKeyType: 'IP',
      EvaluationWindowSec: 300,
    });
    expect(rate.Action.Block.CustomResponse.ResponseCode).toBe(429);
    const common = rules.find((r) => r.Name === 'AWSManagedRulesCommonRuleSet');
    expect(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
    ]);
    // What the groups match is blocked by label with a plain text body, not CloudFront's HTML error page.
    const blocks = rules.filter((r) => r.Action?.Block);
    for (const rule of blocks)
      expect(
        acl.Properties.CustomResponseBodies[rule.Action.Block.CustomResponse.CustomResponseBodyKey].ContentType,
      ).toBe('TEXT_PLAIN');
    expect(blocks.map((r) => r.Action.Block.CustomResponse.ResponseCode).sort()).toEqual([403, 413, 429]);
    const priorities = rules.map((r) => r.Priority);
    expect(new Set(priorities).size).toBe(priorities.length);
  });

  describe('WAF blocks on labels as AWS ships the rules', () => {
    type Statement = Record<string, any>;
    /** Evaluates a web ACL statement of label matches against the labels earlier rules added. */
    const matches = (st: Statement, labels: string[]): boolean => {
      if (st.LabelMatchStatement) {
        const { Scope, Key } = st.LabelMatchStatement as { Scope: string; Key: string };
        return Scope === 'LABEL' ? labels.includes(Key) : labels.some((l) => l.startsWith(Key));
      }
      if (st.AndStatement) return (st.AndStatement.Statements as Statement[]).every((s) => matches(s, labels));
      if (st.OrStatement) return (st.OrStatement.Statements as Statement[]).some((s) => matches(s, labels));
      if (st.NotStatement) return !matches(st.NotStatement.Statement, labels);
      throw new Error(`unexpected statement ${JSON.stringify(st)}`);
    };
    const blockedBy = (template: { Resources: Record<string, any> }) => {
      const acl = Object.values(template.Resources).find((r) => r.Type === 'AWS::WAFv2::WebACL');
      const rule = (acl.Properties.Rules as any[]).find((r) => r.Name === 'BlockManagedMatches');
      return (...labels: string[]) => matches(rule.Statement, labels);
    };
    const ip = (rule: string) => `awswaf:managed:aws:amazon-ip-list:${rule}`;
    const crs = (rule: string) => `awswaf:managed:aws:core-rule-set:${rule}`;

    it('counts AWSManagedIPDDoSList (count mode as shipped) and blocks the other IP reputation rules', () => {
      const blocks = blockedBy(json);
      expect(blocks(ip('AWSManagedIPDDoSList'))).toBe(false);
      expect(blocks(ip('AWSManagedIPReputationList'))).toBe(true);
      expect(blocks(ip('AWSManagedReconnaissanceList'))).toBe(true);
      expect(blocks()).toBe(false);
    });

    it('blocks AWSManagedIPDDoSList only when asked: -c edgeWafBlockDdosList=true', () => {
      const strict = synthStack({ edgeWafBlockDdosList: 'true' }).template.toJSON() as {
        Resources: Record<string, any>;
      };
      expect(blockedBy(strict)(ip('AWSManagedIPDDoSList'))).toBe(true);
    });

    it('lets a request without a user agent through (a bot click), but not one the core rule set flags otherwise', () => {
      const blocks = blockedBy(json);
      expect(blocks(crs('NoUserAgent_Header'))).toBe(false);
      expect(blocks(crs('NoUserAgent_Header'), crs('CrossSiteScripting_Body'))).toBe(true);
      expect(blocks(crs('NoUserAgent_Header'), crs('GenericLFI_QueryArguments'))).toBe(true);
      // With a user agent, any core rule set label blocks, a rule AWS adds later included.
      expect(blocks(crs('CrossSiteScripting_Body'))).toBe(true);
      expect(blocks(crs('SomeRuleAddedLater_Body'))).toBe(true);
      // The size label is BlockOversizeBodies' (413), not this rule's.
      expect(blocks(crs('SizeRestrictions_Body'))).toBe(false);
      expect(blocks('awswaf:managed:aws:known-bad-inputs:Log4JRCE_Header')).toBe(true);
    });
  });

  it('takes the context values: -c edgeWaf=false, -c edgeRateLimitPer5Min, -c linkCertificateArn', () => {
    const off = synthStack({ edgeWaf: 'false' }).template.toJSON() as { Resources: Record<string, any> };
    const offDist = Object.values(off.Resources).find((r) => r.Type === 'AWS::CloudFront::Distribution');
    expect(Object.values(off.Resources).filter((r) => r.Type === 'AWS::WAFv2::WebACL')).toEqual([]);
    expect(offDist.Properties.DistributionConfig.WebACLId).toBeUndefined();

    const arn = 'arn:aws:acm:us-east-1:111111111111:certificate/0f0e0d0c-aaaa-bbbb-cccc-000011112222';
    const custom = synthStack({ edgeRateLimitPer5Min: '500', linkCertificateArn: arn }).template.toJSON() as {
      Resources: Record<string, any>;
    };
    const acl = Object.values(custom.Resources).find((r) => r.Type === 'AWS::WAFv2::WebACL');
    expect(
      acl.Properties.Rules.find((r: any) => r.Statement.RateBasedStatement).Statement.RateBasedStatement.Limit,
    ).toBe(500);
    const dist = Object.values(custom.Resources).find((r) => r.Type === 'AWS::CloudFront::Distribution');
    expect(dist.Properties.DistributionConfig.ViewerCertificate).toEqual({
      AcmCertificateArn: arn,
      SslSupportMethod: 'sni-only',
      MinimumProtocolVersion: 'TLSv1.2_2021',
    });

    const synthWith =
      (context: Record<string, string>, region = 'us-east-1') =>
      () =>
        new LinkServiceStack(new App({ context: { 'aws:cdk:bundling-stacks': [], ...context } }), 'Bad', {
          env: { account: '111111111111', region },
        });
    expect(synthWith({ edgeRateLimitPer5Min: 'lots' })).toThrow(/edgeRateLimitPer5Min/);
    expect(synthWith({ linkCertificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/x' })).toThrow(/us-east-1/);
    expect(synthWith({ edgeWaf: 'maybe' })).toThrow(/edgeWaf/);
    expect(synthWith({ edgeWafBlockDdosList: 'yes' })).toThrow(/edgeWafBlockDdosList/);
    expect(synthWith({}, 'eu-west-1')).toThrow(/us-east-1/);
  });

  it('gives the admin CLI a managed policy with exactly the CloudFront tenant actions it calls', () => {
    const [policyId, policy] = one('AWS::IAM::ManagedPolicy');
    expect(json.Outputs.AdminDomainsPolicyArn.Value).toEqual({ Ref: policyId });
    const actions = (policy.Properties.PolicyDocument.Statement as any[]).flatMap((s) => [s.Action].flat());
    for (const a of [
      'cloudfront:CreateDistributionTenant',
      'cloudfront:UpdateDistributionTenant',
      'cloudfront:GetDistributionTenantByDomain',
      'cloudfront:DeleteDistributionTenant',
      'cloudfront:VerifyDnsConfiguration',
      'cloudfront:GetManagedCertificateDetails',
      'cloudfront:GetConnectionGroup',
    ])
      expect(actions).toContain(a);
    expect(actions.some((a: string) => a.endsWith(':*') || a === '*')).toBe(false);
  });

  it('stays well under the CloudFormation limits (500 resources, 1 MB)', () => {
    expect(Object.keys(json.Resources).length).toBeLessThan(500);
    expect(JSON.stringify(json).length).toBeLessThan(1_000_000);
  });
});
