import type { Construct } from 'constructs';

/** The front door's CDK context values (`-c name=value`), checked at synth. */
export interface FrontDoorContext {
  waf: boolean;
  /** Block the IP reputation group's AWSManagedIPDDoSList matches (AWS ships that rule in count mode). */
  blockDdosIpList: boolean;
  rateLimitPer5Min: number;
  linkCertificateArn?: string;
  originSecretRotation?: string;
  /**
   * Hot links answered in the edge location (context `edgeHotLinks`, on through cdk.json): a KeyValueStore,
   * the hot-link viewer-request function on the link paths and the writer that fills the store.
   * Off until edge-answered clicks are counted (real-time logs): on, those clicks are not counted.
   */
  hotLinks: boolean;
}

export const DEFAULT_RATE_LIMIT_PER_5_MIN = 2000;

export const frontDoorContext = (scope: Construct): FrontDoorContext => {
  const raw = (name: string): string | undefined => {
    const value: unknown = scope.node.tryGetContext(name);
    if (value === undefined || value === null || value === '') return undefined;
    // CLI values are strings; cdk.json may hold a boolean or number, read as it prints.
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
  const waf = raw('edgeWaf');
  if (waf !== undefined && waf !== 'true' && waf !== 'false')
    throw new Error(`-c edgeWaf must be true or false, got ${waf}`);
  const ddos = raw('edgeWafBlockDdosList');
  if (ddos !== undefined && ddos !== 'true' && ddos !== 'false')
    throw new Error(`-c edgeWafBlockDdosList must be true or false, got ${ddos}`);
  const hotLinks = raw('edgeHotLinks');
  if (hotLinks !== undefined && hotLinks !== 'true' && hotLinks !== 'false')
    throw new Error(`-c edgeHotLinks must be true or false, got ${hotLinks}`);
  const rate = raw('edgeRateLimitPer5Min');
  const rateLimitPer5Min = rate === undefined ? DEFAULT_RATE_LIMIT_PER_5_MIN : Number(rate);
  // WAF's rate-based rules take 10 to 2,000,000,000 requests per window.
  if (!Number.isInteger(rateLimitPer5Min) || rateLimitPer5Min < 10 || rateLimitPer5Min > 2_000_000_000) {
    throw new Error(`-c edgeRateLimitPer5Min must be a whole number from 10 to 2000000000, got ${rate}`);
  }
  const linkCertificateArn = raw('linkCertificateArn');
  if (
    linkCertificateArn !== undefined &&
    !/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/.test(linkCertificateArn)
  ) {
    throw new Error(
      '-c linkCertificateArn must be an ACM certificate ARN in us-east-1 (CloudFront reads certificates only there)',
    );
  }
  return {
    waf: waf !== 'false',
    blockDdosIpList: ddos === 'true',
    rateLimitPer5Min,
    linkCertificateArn,
    originSecretRotation: raw('originSecretRotation'),
    hotLinks: hotLinks === 'true',
  };
};
