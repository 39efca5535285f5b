import { Aws, CfnOutput, Duration, Fn, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  CfnCachePolicy,
  CfnConnectionGroup,
  CfnDistribution,
  CfnFunction,
  CfnKeyValueStore,
  CfnOriginRequestPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import {
  FunctionUrlAuthType,
  InvokeMode,
  type Function as LambdaFunction,
  type FunctionUrl,
} from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { VISITOR_COOKIE } from '@shared/edge/visitor-cookie';
import { ORIGIN_VERIFY_HEADER, ORIGIN_VERIFY_SECRET_ARN_ENV } from '@shared/http/origin-verify';
import { hotLinkFunctionCode } from './front-door/hot-link-function-code';
import { viewerRequestCode } from './front-door/viewer-request-code';

/** CloudFront's managed CachingDisabled policy: clicks are never cached. */
export const CACHING_DISABLED_POLICY_ID = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';

/** The viewer headers the edge reads, plus the CDN's viewer headers. Never `Host`. */
export const EDGE_ORIGIN_HEADERS = [
  'x-forwarded-host',
  'CloudFront-Viewer-Country',
  'CloudFront-Viewer-Address',
  'User-Agent',
  'Referer',
  'Accept-Language',
  'Content-Type',
  'X-Request-Id',
] as const;

/** How long `/.well-known/*` answers (app-link files) may be cached at the edge. */
export const WELL_KNOWN_TTL = Duration.minutes(5);

export interface EdgeOrigin {
  /** The function (invoke mode RESPONSE_STREAM, auth NONE) and the paths it answers; `*` = default. */
  fn: LambdaFunction;
  pathPatterns: string[];
  /** Cacheable (a short TTL, keyed by host): `/.well-known/*`. */
  cacheable?: boolean;
}

export interface EdgeFrontDoorProps {
  origins: EdgeOrigin[];
  /** WAF web ACL on the distribution (context `edgeWaf`, default on). */
  waf: boolean;
  /** Also block AWSManagedIPDDoSList matches (context `edgeWafBlockDdosList`, default off: AWS ships it in count mode). */
  blockDdosIpList?: boolean;
  /** Requests per IP per 5 minutes before the rate rule answers 429 (context `edgeRateLimitPer5Min`). */
  rateLimitPer5Min: number;
  /** An operator's own ACM certificate (us-east-1, wildcard for the link domains); else per-tenant managed certificates. */
  linkCertificateArn?: string;
  /** Changing it makes CloudFormation update the distribution and re-read the origin secret (rotation). */
  originSecretRotation?: string;
  /** Hot links answered in the edge location (context `edgeHotLinks`, on through cdk.json; docs/edge.md). */
  hotLinks?: boolean;
}

const cfPathPattern = (path: string) => path.replace(/^\//, '');

/**
 * The front door of the short-link edge: CloudFront SaaS Manager. A multi-tenant distribution
 * (`ConnectionMode: tenant-only`, L1: the L2 Distribution always emits IPV6Enabled, which a
 * multi-tenant distribution rejects; IPv6 and price class belong to the connection group), a
 * connection group whose routing endpoint customers point their domains at, and one distribution
 * tenant per customer domain, created by the admin CLI (`domains verify`), not by the stack.
 *
 * Origins are the edge functions' URLs with the origin-verify header from Secrets Manager; a
 * viewer-request CloudFront Function copies the viewer's Host to x-forwarded-host; the origin
 * request policy forwards what the edge reads and never Host. A WAFv2 web ACL (managed rule
 * groups, IP reputation, a per-IP rate rule) answers blocked requests with plain 403 / 429.
 */
export class EdgeFrontDoor extends Construct {
  readonly distribution: CfnDistribution;
  readonly connectionGroup: CfnConnectionGroup;
  readonly originSecret: Secret;
  readonly viewerRequestFunction: CfnFunction;
  /** With hot links on: the store of hot links' redirects and the viewer-request function reading it. */
  readonly hotLinkStore?: CfnKeyValueStore;
  readonly hotLinkFunction?: CfnFunction;
  readonly originRequestPolicy: CfnOriginRequestPolicy;
  readonly webAcl?: CfnWebACL;
  /** What `npm run admin -- domains ...` needs (attach to the operator's role or user). */
  readonly adminPolicy: ManagedPolicy;
  readonly functionUrls: FunctionUrl[] = [];

  constructor(scope: Construct, id: string, props: EdgeFrontDoorProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (props.waf && !Token.isUnresolved(stack.region) && stack.region !== 'us-east-1') {
      throw new Error(
        `A WAF web ACL for CloudFront must be created in us-east-1; deploy the stack there or pass -c edgeWaf=false (region: ${stack.region}).`,
      );
    }

    this.originSecret = new Secret(this, 'OriginVerifySecret', {
      description:
        'Header value CloudFront adds to every origin request; the edge refuses requests without it. Rotate: docs/deploy.md.',
      generateSecretString: { excludePunctuation: true, passwordLength: 48 },
    });
    Validations.of(this.originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotated by the operator (docs/deploy.md): a new value must reach the distribution in the same change; the edge accepts AWSCURRENT and AWSPREVIOUS, so a rotation has no downtime.',
    });

    this.viewerRequestFunction = new CfnFunction(this, 'ViewerRequestFunction', {
      name: `${stack.stackName}-viewer-request`.slice(0, 64),
      autoPublish: true,
      functionCode: viewerRequestCode(),
      functionConfig: { comment: 'Copies the viewer Host to x-forwarded-host', runtime: 'cloudfront-js-2.0' },
    });

    if (props.hotLinks) {
      this.hotLinkStore = new CfnKeyValueStore(this, 'HotLinkStore', {
        name: `${stack.stackName}-hot-links`.slice(0, 64),
        comment: "Hot links' redirects (host/key -> entry), written by the hot-set writer only",
      });
      this.hotLinkFunction = new CfnFunction(this, 'HotLinkFunction', {
        name: `${stack.stackName}-hot-links`.slice(0, 64),
        autoPublish: true,
        functionCode: hotLinkFunctionCode(),
        functionConfig: {
          comment: 'Answers hot links from the KeyValueStore; else copies the viewer Host to x-forwarded-host',
          runtime: 'cloudfront-js-2.0',
          keyValueStoreAssociations: [{ keyValueStoreArn: this.hotLinkStore.attrArn }],
        },
      });
    }

    this.originRequestPolicy = new CfnOriginRequestPolicy(this, 'EdgeOriginRequestPolicy', {
      originRequestPolicyConfig: {
        name: `${stack.stackName}-edge-origin`.slice(0, 128),
        comment:
          'What the edge reads: the viewer host (x-forwarded-host), country and address, UA, referer, the visitor cookie; never Host',
        headersConfig: { headerBehavior: 'whitelist', headers: [...EDGE_ORIGIN_HEADERS] },
        queryStringsConfig: { queryStringBehavior: 'all' },
        // The A/B-test visitor cookie alone (shared/edge/visitor-cookie.ts); no other cookie reaches the edge.
        cookiesConfig: { cookieBehavior: 'whitelist', cookies: [VISITOR_COOKIE] },
      },
    });

    const wellKnownCache = new CfnCachePolicy(this, 'WellKnownCachePolicy', {
      cachePolicyConfig: {
        name: `${stack.stackName}-well-known`.slice(0, 128),
        comment: 'App-link files: short TTL, one entry per link domain',
        defaultTtl: WELL_KNOWN_TTL.toSeconds(),
        maxTtl: WELL_KNOWN_TTL.toSeconds(),
        minTtl: 0,
        parametersInCacheKeyAndForwardedToOrigin: {
          enableAcceptEncodingGzip: true,
          enableAcceptEncodingBrotli: true,
          headersConfig: { headerBehavior: 'whitelist', headers: ['x-forwarded-host'] },
          queryStringsConfig: { queryStringBehavior: 'none' },
          cookiesConfig: { cookieBehavior: 'none' },
        },
      },
    });

    const originId = (i: number) => `edge-${i}`;
    const origins: CfnDistribution.OriginProperty[] = props.origins.map((origin, i) => {
      const url = origin.fn.addFunctionUrl({
        authType: FunctionUrlAuthType.NONE,
        invokeMode: InvokeMode.RESPONSE_STREAM,
      });
      this.functionUrls.push(url);
      this.originSecret.grantRead(origin.fn);
      origin.fn.addEnvironment(ORIGIN_VERIFY_SECRET_ARN_ENV, this.originSecret.secretArn);
      return {
        id: originId(i),
        // https://<id>.lambda-url.<region>.on.aws/ -> the host name.
        domainName: Fn.select(2, Fn.split('/', url.url)),
        customOriginConfig: {
          originProtocolPolicy: 'https-only',
          originSslProtocols: ['TLSv1.2'],
          originReadTimeout: 30,
        },
        originCustomHeaders: [
          { headerName: ORIGIN_VERIFY_HEADER, headerValue: this.originSecret.secretValue.unsafeUnwrap() },
        ],
      };
    });

    // The link paths (the default behavior) get the hot-link function when it exists; it sends
    // every request it does not answer on exactly as the plain viewer-request function does.
    const viewerFunctionArn = (isDefault: boolean): string =>
      isDefault && this.hotLinkFunction
        ? this.hotLinkFunction.attrFunctionArn
        : this.viewerRequestFunction.attrFunctionArn;
    const behavior = (i: number, cacheable: boolean, isDefault = false) => ({
      targetOriginId: originId(i),
      viewerProtocolPolicy: 'redirect-to-https',
      allowedMethods: cacheable ? ['GET', 'HEAD'] : ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      cachedMethods: ['GET', 'HEAD'],
      compress: true,
      cachePolicyId: cacheable ? wellKnownCache.attrId : CACHING_DISABLED_POLICY_ID,
      originRequestPolicyId: this.originRequestPolicy.attrId,
      functionAssociations: [{ eventType: 'viewer-request', functionArn: viewerFunctionArn(isDefault) }],
    });
    const defaultIndex = props.origins.findIndex((o) => o.pathPatterns.includes('*'));
    if (defaultIndex < 0) throw new Error('EdgeFrontDoor: one origin must answer the default path (*)');
    const cacheBehaviors = props.origins.flatMap((origin, i) =>
      origin.pathPatterns
        .filter((p) => p !== '*')
        .map((pathPattern) => ({ pathPattern: cfPathPattern(pathPattern), ...behavior(i, origin.cacheable ?? false) })),
    );

    this.webAcl = props.waf ? this.createWebAcl(props.rateLimitPer5Min, props.blockDdosIpList ?? false) : undefined;

    this.distribution = new CfnDistribution(this, 'Distribution', {
      distributionConfig: {
        enabled: true,
        connectionMode: 'tenant-only',
        comment:
          `${stack.stackName} short-link edge (multi-tenant)${props.originSecretRotation ? ` rotation ${props.originSecretRotation}` : ''}`.slice(
            0,
            128,
          ),
        httpVersion: 'http2and3',
        origins,
        defaultCacheBehavior: behavior(defaultIndex, false, true),
        cacheBehaviors,
        webAclId: this.webAcl?.attrArn,
        viewerCertificate: props.linkCertificateArn
          ? {
              acmCertificateArn: props.linkCertificateArn,
              sslSupportMethod: 'sni-only',
              minimumProtocolVersion: 'TLSv1.2_2021',
            }
          : { cloudFrontDefaultCertificate: true },
      },
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Links must open worldwide; per-tenant geo restrictions are a distribution-tenant customization.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Every click is recorded as an event in the lake (Firehose -> S3); standard access logs would duplicate it.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'Viewer TLS is per tenant (CloudFront-managed certificate or linkCertificateArn, TLSv1.2_2021); the default certificate only stands in on the tenant-only distribution, which has no address of its own.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason: 'WAF is on by default (context edgeWaf); turning it off is an explicit operator choice.',
      },
    );

    this.connectionGroup = new CfnConnectionGroup(this, 'ConnectionGroup', {
      name: `${stack.stackName}-links`.slice(0, 128),
      enabled: true,
      ipv6Enabled: true,
    });

    this.adminPolicy = new ManagedPolicy(this, 'AdminDomainsPolicy', {
      description: 'What `npm run admin -- domains add|verify|remove` needs on the front door',
      statements: [
        new PolicyStatement({
          actions: ['cloudfront:GetConnectionGroup'],
          resources: [this.connectionGroup.attrArn],
        }),
        // Service Authorization Reference, "Actions defined by Amazon CloudFront": the
        // CreateDistributionTenant row lists no resource type, so IAM only matches it on "*"
        // (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoncloudfront.html).
        new PolicyStatement({ actions: ['cloudfront:CreateDistributionTenant'], resources: ['*'] }),
        // Same reference: UpdateDistributionTenant, GetDistributionTenant, GetDistributionTenantByDomain,
        // DeleteDistributionTenant and GetManagedCertificateDetails require the distribution-tenant
        // resource type; VerifyDnsConfiguration takes it optionally.
        new PolicyStatement({
          actions: [
            'cloudfront:UpdateDistributionTenant',
            'cloudfront:GetDistributionTenant',
            'cloudfront:GetDistributionTenantByDomain',
            'cloudfront:DeleteDistributionTenant',
            'cloudfront:VerifyDnsConfiguration',
            'cloudfront:GetManagedCertificateDetails',
          ],
          resources: [`arn:${Aws.PARTITION}:cloudfront::${Aws.ACCOUNT_ID}:distribution-tenant/*`],
        }),
        // CreateDistributionTenant with a managed certificate asks ACM for it on the operator's behalf.
        new PolicyStatement({ actions: ['acm:RequestCertificate', 'acm:DescribeCertificate'], resources: ['*'] }),
      ],
    });
    Validations.of(this.adminPolicy).acknowledge(
      {
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudfront::<AWS::AccountId>:distribution-tenant/*]',
        reason:
          "Distribution tenants are created at run time by the admin CLI (their ids are not known to the stack); the wildcard covers this account's tenants only.",
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'cloudfront:CreateDistributionTenant has no resource type in the Service Authorization Reference (only "*" matches it); acm:RequestCertificate / DescribeCertificate for tenant-managed certificates: a certificate has no ARN before it is requested.',
      },
    );

    new CfnOutput(stack, 'DistributionId', {
      value: this.distribution.attrId,
      description: 'Multi-tenant distribution (tenant-only)',
    });
    new CfnOutput(stack, 'ConnectionGroupId', { value: this.connectionGroup.attrId });
    new CfnOutput(stack, 'RoutingEndpoint', {
      value: this.connectionGroup.attrRoutingEndpoint,
      description: 'CNAME target for customer link domains',
    });
    new CfnOutput(stack, 'EdgeFunctionUrls', {
      value: Fn.join(
        ',',
        this.functionUrls.map((u) => u.url),
      ),
      description:
        'The edge function URLs (comma-separated): a request straight to one, bypassing CloudFront, is refused (403)',
    });
    new CfnOutput(stack, 'OriginVerifySecretArn', { value: this.originSecret.secretArn });
    new CfnOutput(stack, 'AdminDomainsPolicyArn', { value: this.adminPolicy.managedPolicyArn });
  }

  private createWebAcl(rateLimit: number, blockDdosIpList: boolean): CfnWebACL {
    const visibility = (metricName: string) => ({
      sampledRequestsEnabled: true,
      cloudWatchMetricsEnabled: true,
      metricName,
    });
    const managed = (
      name: string,
      priority: number,
      extra: Partial<CfnWebACL.ManagedRuleGroupStatementProperty> = {},
    ): CfnWebACL.RuleProperty => ({
      name,
      priority,
      // Each group only labels what it matches; the Block* rules below block on those labels with
      // a plain text answer (a managed group's own block would be CloudFront's HTML error page).
      overrideAction: { count: {} },
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name, ...extra } },
      visibilityConfig: visibility(name),
    });
    const label = (key: string): CfnWebACL.StatementProperty => ({ labelMatchStatement: { scope: 'LABEL', key } });
    const namespace = (key: string): CfnWebACL.StatementProperty => ({
      labelMatchStatement: { scope: 'NAMESPACE', key },
    });
    const sizeLabel = 'awswaf:managed:aws:core-rule-set:SizeRestrictions_Body';
    // Blocked on their labels: what AWS ships in block mode. Two rules AWS ships differently are
    // left to count (https://docs.aws.amazon.com/waf/latest/developerguide/aws-managed-rule-groups-ip-rep.html):
    // AWSManagedIPDDoSList is a count-mode rule of the IP reputation group (blocked only with
    // -c edgeWafBlockDdosList=true); and the core rule set's NoUserAgent_HEADER is not blocked
    // because a click without a user agent is answered and counted as a bot click, as documented.
    const ipReputationBlocked = [
      'AWSManagedIPReputationList',
      'AWSManagedReconnaissanceList',
      ...(blockDdosIpList ? ['AWSManagedIPDDoSList'] : []),
    ].map((rule) => label(`awswaf:managed:aws:amazon-ip-list:${rule}`));
    const noUserAgentLabel = 'awswaf:managed:aws:core-rule-set:NoUserAgent_Header';
    // A request without a user agent still meets the core rule set's other rules: they are named
    // here (the group's documented rules) since a label namespace cannot be matched "minus one".
    // Requests with a user agent are matched by the whole namespace, so a rule AWS adds later
    // blocks them too.
    const coreRulesForNoUserAgent = [
      'UserAgent_BadBots_Header',
      'SizeRestrictions_QueryString',
      'SizeRestrictions_Cookie_Header',
      'SizeRestrictions_URIPath',
      'EC2MetaDataSSRF_Body',
      'EC2MetaDataSSRF_Cookie',
      'EC2MetaDataSSRF_URIPath',
      'EC2MetaDataSSRF_QueryArguments',
      'GenericLFI_QueryArguments',
      'GenericLFI_URIPath',
      'GenericLFI_Body',
      'RestrictedExtensions_URIPath',
      'RestrictedExtensions_QueryArguments',
      'GenericRFI_QueryArguments',
      'GenericRFI_Body',
      'GenericRFI_URIPath',
      'CrossSiteScripting_Cookie',
      'CrossSiteScripting_QueryArguments',
      'CrossSiteScripting_Body',
      'CrossSiteScripting_URIPath',
    ].map((rule) => label(`awswaf:managed:aws:core-rule-set:${rule}`));
    return new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('edge-web-acl'),
      customResponseBodies: {
        forbidden: { contentType: 'TEXT_PLAIN', content: 'Forbidden' },
        'too-many-requests': { contentType: 'TEXT_PLAIN', content: 'Too Many Requests' },
        'too-large': { contentType: 'TEXT_PLAIN', content: 'Request body too large' },
      },
      rules: [
        managed('AWSManagedRulesAmazonIpReputationList', 0),
        managed('AWSManagedRulesCommonRuleSet', 1, {
          // Counted (labelled) here and decided by BlockOversizeBodies, so a route whose legal
          // bodies are larger than 8 KB can be let through by path.
          ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }],
        }),
        managed('AWSManagedRulesKnownBadInputsRuleSet', 2),
        {
          name: 'RateLimitPerIp',
          priority: 3,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'too-many-requests',
                responseHeaders: [{ name: 'retry-after', value: '300' }],
              },
            },
          },
          statement: { rateBasedStatement: { limit: rateLimit, evaluationWindowSec: 300, aggregateKeyType: 'IP' } },
          visibilityConfig: visibility('rate-limit-per-ip'),
        },
        {
          name: 'BlockOversizeBodies',
          priority: 4,
          action: { block: { customResponse: { responseCode: 413, customResponseBodyKey: 'too-large' } } },
          // Every edge body (password form, launch-view beacon) is far under 8 KB.
          statement: label(sizeLabel),
          visibilityConfig: visibility('block-oversize-bodies'),
        },
        {
          name: 'BlockManagedMatches',
          priority: 5,
          action: { block: { customResponse: { responseCode: 403, customResponseBodyKey: 'forbidden' } } },
          statement: {
            orStatement: {
              statements: [
                ...ipReputationBlocked,
                namespace('awswaf:managed:aws:known-bad-inputs:'),
                {
                  andStatement: {
                    statements: [
                      namespace('awswaf:managed:aws:core-rule-set:'),
                      { notStatement: { statement: label(sizeLabel) } },
                      { notStatement: { statement: label(noUserAgentLabel) } },
                    ],
                  },
                },
                ...coreRulesForNoUserAgent,
              ],
            },
          },
          visibilityConfig: visibility('block-managed-matches'),
        },
      ],
    });
  }
}
