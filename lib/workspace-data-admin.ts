import { Stack, Validations } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyStatement, Role } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { COMPACTED_PREFIX, RAW_PREFIX } from '@shared/analytics/lake/lake-layout';
import type { Analytics } from './analytics';

export interface WorkspaceDataAdminProps {
  table: TableV2;
  lakeBucket: IBucket;
  analytics: Analytics;
  /** The stream consumers' kept failures: erasure rewrites or deletes the workspace's batches. */
  failuresBuckets: IBucket[];
}

/**
 * The role an operator assumes for `admin export-workspace` and `admin delete-workspace`
 * (docs/operations.md): exactly what those two commands call. Trusts the account: who may assume
 * it is the account's own IAM decision (grant sts:AssumeRole on its ARN to the operators).
 */
export class WorkspaceDataAdmin extends Construct {
  readonly role: Role;
  /** ListBucket on the failures buckets (and the Athena results bucket). */
  private readonly failuresList = new PolicyStatement({ actions: ['s3:ListBucket'] });
  /** Get, Put and Delete on the failures buckets' objects. */
  private readonly failuresObjects = new PolicyStatement({
    actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
  });

  constructor(scope: Construct, id: string, props: WorkspaceDataAdminProps) {
    super(scope, id);
    this.role = new Role(this, 'Role', {
      assumedBy: new AccountRootPrincipal(),
      description:
        'admin export-workspace / delete-workspace: scan and batch-delete the table, query the lake, rewrite and delete lake objects and the copies of events',
    });
    // Find a workspace's items (paged Scans, its workspace item) and delete them in batches.
    // The base table only (no index is read): no index/* wildcard.
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:BatchWriteItem'],
        resources: [props.table.tableArn],
      }),
    );
    // Erasure records the workspace's tombstone first (shared/tenancy/erased-workspaces.ts): PutItem on ERASED# keys only.
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['dynamodb:PutItem'],
        resources: [props.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['ERASED#*'] } },
      }),
    );
    // Export reads its events through Athena, as the analytics routes do.
    props.analytics.grantQuery(this.role);
    // Erasure: list the lake, rewrite raw objects of the workspace's shard, delete its compacted objects.
    this.role.addToPolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [props.lakeBucket.bucketArn] }));
    this.role.addToPolicy(
      new PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [
          props.lakeBucket.arnForObjects(`${RAW_PREFIX}*`),
          props.lakeBucket.arnForObjects(`${COMPACTED_PREFIX}*`),
        ],
      }),
    );
    // The copies: kept failures rewritten without the workspace's records (or deleted), every query result deleted.
    const results = props.analytics.resultsBucket;
    for (const bucket of props.failuresBuckets) this.addFailuresBucket(bucket);
    this.failuresList.addResources(results.bucketArn);
    this.role.addToPolicy(this.failuresList);
    this.role.addToPolicy(this.failuresObjects);
    this.role.addToPolicy(
      new PolicyStatement({ actions: ['s3:DeleteObject'], resources: [results.arnForObjects('athena/*')] }),
    );
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(results.node.defaultChild as never)}.Arn>/athena/*]`,
      reason: 'Erasure deletes every Athena query result (a result does not name its workspace); delete only.',
    });
    const bucketId = Stack.of(this).getLogicalId(props.lakeBucket.node.defaultChild as never);
    for (const prefix of [RAW_PREFIX, COMPACTED_PREFIX]) {
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${prefix}*]`,
        reason:
          'Erasure rewrites or deletes any object of a workspace (raw objects named by Firehose at run time, compacted objects per workspace and day); an operator role, events and compacted prefixes only.',
      });
    }
  }

  /**
   * A stream consumer's kept failures, which erasure rewrites or deletes (a bucket created after
   * this role, as the edge click-log consumer's, is added by the stack).
   */
  addFailuresBucket(bucket: IBucket): void {
    this.failuresList.addResources(bucket.bucketArn);
    this.failuresObjects.addResources(bucket.arnForObjects('*'));
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(bucket.node.defaultChild as never)}.Arn>/*]`,
      reason:
        'Erasure rewrites or deletes kept failed batches under the keys Lambda chose; an operator role, the failures buckets only.',
    });
  }
}
