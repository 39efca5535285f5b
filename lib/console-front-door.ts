import { existsSync } from 'node:fs';
import path from 'node:path';
import { Duration, Fn, NestedStack, RemovalPolicy, Token, Validations, type NestedStackProps } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  OriginProtocolPolicy,
  OriginRequestCookieBehavior,
  OriginRequestHeaderBehavior,
  OriginRequestPolicy,
  OriginRequestQueryStringBehavior,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { HttpOrigin, S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import { BucketDeployment, Source } from 'aws-cdk-lib/aws-s3-deployment';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { SESSION_COOKIE } from '@shared/auth/sessions';
import { CONSOLE_CONTENT_SECURITY_POLICY } from '@shared/http/console-headers';
import { ORIGIN_VERIFY_HEADER } from '@shared/http/origin-verify-header';

/** A stack's account or region as cdk-nag prints it: the value, or `<AWS::AccountId>` for an unresolved one. */
const shown = (value: string, pseudo: string): string => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);

/** Where the console is served on its distribution (and locally, on the API's origin). */
export const CONSOLE_PATH = '/console/';

/** Where `npm run build -w console` writes the console's files; synth uploads them when they exist. */
export const CONSOLE_DIST_DIR = path.join(import.meta.dirname, '..', 'console', 'dist');

/**
 * What `/v1/*` forwards to the service API: the headers it reads (the console's
 * `x-requested-with`, a key for callers that send one, the body's type, an idempotency key, a
 * request id, the user agent the audit log records) and the viewer's address. Never `Host` (API
 * Gateway answers only its own).
 */
export const CONSOLE_API_HEADERS = [
  'x-requested-with',
  'api-key',
  'content-type',
  'idempotency-key',
  'x-request-id',
  'user-agent',
  'CloudFront-Viewer-Address',
] as const;

/**
 * The console's Content-Security-Policy: everything from its own origin, no inline script (Vite
 * builds script files), images also as data: and blob: URLs (QR codes), no framing. The one
 * definition is shared/http/console-headers.ts: `npm start` serves the console with it too.
 */
export const CONSOLE_CSP = CONSOLE_CONTENT_SECURITY_POLICY;

/** Sign-in attempts (POST /v1/sessions) per address per five minutes before WAF answers 429. */
export const DEFAULT_SIGN_IN_RATE_LIMIT_PER_5_MIN = 100;

/**
 * The console's viewer-request function (cloudfront-js-2.0) on the files: `/` goes to the console,
 * and a page's path under it (`/console/links/lnk_...`: no file extension) is answered with the
 * single-page app's `index.html`, which routes it in the browser. A file's path is left alone, so
 * a missing file is still an error (the bucket is private: S3 answers 403).
 */
export const consoleViewerRequestCode = (): string =>
  `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '${CONSOLE_PATH.slice(0, -1)}') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${CONSOLE_PATH}' } } };
  }
  if (uri.indexOf('${CONSOLE_PATH}') === 0 && uri.lastIndexOf('.') < uri.lastIndexOf('/')) {
    request.uri = '${CONSOLE_PATH}index.html';
  }
  return request;
}
`;

export interface ConsoleFrontDoorProps extends NestedStackProps {
  serviceApi: IHttpApi;
  /** The origin-verify secret (the edge front door's): its value goes on every `/v1/*` origin request. */
  originSecret: ISecret;
  /** A WAF web ACL limiting sign-ins (context `edgeWaf`, default on; us-east-1 only). */
  waf: boolean;
  signInRateLimitPer5Min?: number;
  /** The built console (`console/dist`); without it the bucket stays empty until a deploy that has it. */
  distDir?: string;
  /** Changing it makes CloudFormation update the distribution and re-read the origin secret (rotation). */
  originSecretRotation?: string;
  /** The parent stack's name, for the distribution's comment. */
  serviceName: string;
}

/**
 * The web console's front door, a nested stack (the service stack stays far from CloudFormation's
 * 500 resources): a standard CloudFront distribution with the console's built files in a private
 * S3 bucket behind origin access control, and `/v1/*` routed to the service HTTP API with the
 * origin-verify header (the API then trusts `CloudFront-Viewer-Address`: the failed-auth limit
 * and the audit log see the viewer, shared/http/middleware/console-origin.ts). The same origin
 * serves both, so the session cookie (`__Host-session`) needs no CORS and no third-party cookie.
 * Every answer carries the security headers policy; a WAF rate-based rule limits sign-ins per
 * address.
 */
export class ConsoleFrontDoor extends NestedStack {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly responseHeadersPolicy: ResponseHeadersPolicy;
  readonly apiOriginRequestPolicy: OriginRequestPolicy;
  readonly webAcl?: CfnWebACL;
  readonly deployment?: BucketDeployment;
  /** `https://<distribution>/console/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleFrontDoorProps) {
    super(scope, id, props);
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Built files only: a new deploy uploads them again.
      removalPolicy: RemovalPolicy.DESTROY,
      autoDeleteObjects: false,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'The bucket holds only the built console files, uploaded by the deployment; reads go through CloudFront (origin access control), so S3 access logs would record nothing but CloudFront.',
    });

    this.responseHeadersPolicy = new ResponseHeadersPolicy(this, 'SecurityHeaders', {
      comment: 'Web console: CSP without inline script, HSTS, no framing, no sniffing, a strict referrer',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONSOLE_CSP, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(730),
          includeSubdomains: true,
          preload: true,
          override: true,
        },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override: true },
        contentTypeOptions: { override: true },
      },
    });

    this.apiOriginRequestPolicy = new OriginRequestPolicy(this, 'ApiOriginRequestPolicy', {
      comment: 'Web console /v1/*: the headers the API reads, the viewer address and the session cookie; never Host',
      headerBehavior: OriginRequestHeaderBehavior.allowList(...CONSOLE_API_HEADERS),
      cookieBehavior: OriginRequestCookieBehavior.allowList(SESSION_COOKIE),
      queryStringBehavior: OriginRequestQueryStringBehavior.all(),
    });

    const viewerRequest = new CloudFrontFunction(this, 'ViewerRequest', {
      code: FunctionCode.fromInline(consoleViewerRequestCode()),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Web console: / to /console/, page paths to the app',
    });

    this.webAcl = props.waf
      ? this.signInWebAcl(props.signInRateLimitPer5Min ?? DEFAULT_SIGN_IN_RATE_LIMIT_PER_5_MIN)
      : undefined;

    // https://<api-id>.execute-api.<region>.amazonaws.com -> the host name.
    const apiDomain = Fn.select(2, Fn.split('/', props.serviceApi.apiEndpoint));
    this.distribution = new Distribution(this, 'Distribution', {
      comment:
        `${props.serviceName} web console${props.originSecretRotation ? ` rotation ${props.originSecretRotation}` : ''}`.slice(
          0,
          128,
        ),
      httpVersion: HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: this.responseHeadersPolicy,
        functionAssociations: [{ function: viewerRequest, eventType: FunctionEventType.VIEWER_REQUEST }],
        compress: true,
      },
      additionalBehaviors: {
        '/v1/*': {
          origin: new HttpOrigin(apiDomain, {
            protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
            customHeaders: { [ORIGIN_VERIFY_HEADER]: props.originSecret.secretValue.unsafeUnwrap() },
          }),
          viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: AllowedMethods.ALLOW_ALL,
          cachePolicy: CachePolicy.CACHING_DISABLED,
          originRequestPolicy: this.apiOriginRequestPolicy,
          responseHeadersPolicy: this.responseHeadersPolicy,
        },
      },
      ...(this.webAcl ? { webAclId: this.webAcl.attrArn } : {}),
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'The console is for a workspace team wherever it works; the API behind it checks keys and sessions.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'WAF is on by default (context edgeWaf, a sign-in rate rule); turning it off is an explicit operator choice.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'API requests are logged by the service API (access logs, request logs, audit log); the static files need no access log.',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The console is served on the distribution’s own cloudfront.net name, whose default certificate CloudFront manages (TLS 1.2+ from browsers); a custom domain is an operator addition.',
      },
    );
    this.url = `https://${this.distribution.distributionDomainName}${CONSOLE_PATH}`;

    const distDir = props.distDir ?? CONSOLE_DIST_DIR;
    if (existsSync(path.join(distDir, 'index.html'))) {
      this.deployment = new BucketDeployment(this, 'Deploy', {
        sources: [Source.asset(distDir)],
        destinationBucket: this.bucket,
        destinationKeyPrefix: CONSOLE_PATH.slice(1),
        distribution: this.distribution,
        distributionPaths: [`${CONSOLE_PATH}*`],
        memoryLimit: 256,
      });
      // CDK's own deployment function (a singleton of this nested stack) copies the build into the bucket.
      const wildcards = [
        'Action::s3:Abort*',
        'Action::s3:DeleteObject*',
        'Action::s3:GetBucket*',
        'Action::s3:GetObject*',
        'Action::s3:List*',
        `Resource::<${this.getLogicalId(this.bucket.node.defaultChild as CfnBucket)}.Arn>/*`,
        `Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${shown(this.account, 'AccountId')}-${shown(this.region, 'Region')}/*`,
        'Resource::*',
      ];
      Validations.of(this).acknowledge(
        {
          id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
          reason:
            "CDK's BucketDeployment function (it copies the built console into the bucket at deploy time) writes its logs with the AWSLambdaBasicExecutionRole managed policy.",
        },
        ...wildcards.map((finding) => ({
          id: `AwsSolutions-IAM5[${finding}]`,
          reason:
            "CDK's BucketDeployment function copies every file of the console's build from the staging asset to the console bucket (object wildcards; s3 action groups) and invalidates the distribution's /console/* paths (cloudfront:CreateInvalidation has no narrower resource there).",
        })),
        {
          id: 'AwsSolutions-L1',
          reason: "CDK's BucketDeployment function: its runtime is the one the CDK version chooses, upgraded with it.",
        },
      );
    }
  }

  private signInWebAcl(limit: number): CfnWebACL {
    const visibility = (metricName: string) => ({
      sampledRequestsEnabled: true,
      cloudWatchMetricsEnabled: true,
      metricName,
    });
    const exactly = (
      fieldToMatch: CfnWebACL.FieldToMatchProperty,
      searchString: string,
    ): CfnWebACL.StatementProperty => ({
      byteMatchStatement: {
        fieldToMatch,
        positionalConstraint: 'EXACTLY',
        searchString,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    return new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('console-web-acl'),
      customResponseBodies: {
        'sign-in-limited': {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            success: false,
            error: { code: 'rate_limited', message: 'Too many sign-in attempts from this address: retry in 5 minutes' },
            requestId: 'waf',
          }),
        },
      },
      rules: [
        {
          name: 'SignInRateLimitPerIp',
          priority: 0,
          action: {
            block: {
              customResponse: {
                responseCode: 429,
                customResponseBodyKey: 'sign-in-limited',
                responseHeaders: [{ name: 'retry-after', value: '300' }],
              },
            },
          },
          statement: {
            rateBasedStatement: {
              limit,
              evaluationWindowSec: 300,
              aggregateKeyType: 'IP',
              scopeDownStatement: {
                andStatement: {
                  statements: [exactly({ method: {} }, 'POST'), exactly({ uriPath: {} }, '/v1/sessions')],
                },
              },
            },
          },
          visibilityConfig: visibility('console-sign-in-rate-limit'),
        },
      ],
    });
  }
}
