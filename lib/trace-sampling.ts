import { Names } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnSamplingRule } from 'aws-cdk-lib/aws-xray';
import { Construct } from 'constructs';

export interface TraceSamplingProps {
  /** Functions every click runs through (edge links, client click). */
  clickPath: IFunction[];
}

/** The handlers every click runs through (route-table names): sampled sparsely by X-Ray. */
export const clickPathHandlers: readonly string[] = ['edge-links', 'client-click'];

/** Click-path sampling: 1 in 1,000 requests, no per-second reservoir (X-Ray: $5 per million traces recorded). */
export const clickPathSampling = { fixedRate: 0.001, reservoirSize: 0 } as const;

/**
 * X-Ray sampling rules for the functions' active tracing. Lambda asks X-Ray for the sampling
 * decision of a request that arrives without one (HTTP APIs do not trace), so these rules,
 * matched by function name, decide how often a click is traced; the other functions keep the
 * account's default rule (the first request each second and 5% of the rest).
 */
export class TraceSampling extends Construct {
  readonly rules: CfnSamplingRule[];

  constructor(scope: Construct, id: string, props: TraceSamplingProps) {
    super(scope, id);
    this.rules = props.clickPath.map((fn, i) => {
      const rule = new CfnSamplingRule(this, `ClickPath${i}`, {
        samplingRule: {
          // Rule names are unique per account and region and at most 32 characters.
          ruleName: Names.uniqueResourceName(this, { maxLength: 28, separator: '' }) + `c${i}`,
          priority: 100 + i,
          fixedRate: clickPathSampling.fixedRate,
          reservoirSize: clickPathSampling.reservoirSize,
          serviceName: fn.functionName,
          serviceType: '*',
          host: '*',
          httpMethod: '*',
          urlPath: '*',
          resourceArn: '*',
          version: 1,
        },
      });
      return rule;
    });
  }
}
