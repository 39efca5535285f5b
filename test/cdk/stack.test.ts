import { describe, expect, it } from 'vitest';
import { Match } from 'aws-cdk-lib/assertions';
import { routeTable } from '@shared/routes/route-table';
import { tableDefinition } from '@shared/db/table-definition';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();

const resourcesOf = (type: string) => Object.entries(template.findResources(type)) as Array<[string, any]>;

describe('CDK stack', () => {
  it('has an HTTP API route for every service row of the route table (and only those; the edge is behind CloudFront)', () => {
    const routeKeys = resourcesOf('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    const expected = routeTable
      .filter((r) => r.api === 'service')
      .map((r) => (r.path === '$default' ? '$default' : `${r.method} ${r.path}`));
    expect(routeKeys.sort()).toEqual(expected.sort());
  });

  it('runs every handler on Node.js 22, arm64, with TABLE_NAME when it touches the table', () => {
    for (const route of routeTable) {
      const fn = stack.functions.get(route.handler)!;
      const logicalId = stack.getLogicalId(fn.node.defaultChild as never);
      const props = template.toJSON().Resources[logicalId].Properties;
      expect(props.Runtime).toBe('nodejs22.x');
      expect(props.Architectures).toEqual(['arm64']);
      const env = props.Environment?.Variables ?? {};
      if (route.grants.table === 'none') expect(env.TABLE_NAME).toBeUndefined();
      else expect(env.TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^Table/) });
    }
  });

  it("gives bulk create one full vCPU and API Gateway's time limit less a margin; other routes the defaults", () => {
    const propsOf = (handler: string) => {
      const fn = stack.functions.get(handler)!;
      return template.toJSON().Resources[stack.getLogicalId(fn.node.defaultChild as never)].Properties;
    };
    expect(propsOf('links-bulk-create')).toMatchObject({ MemorySize: 1769, Timeout: 29 });
    expect(propsOf('links-create')).toMatchObject({ MemorySize: 512, Timeout: 10 });
    expect(propsOf('links-qr')).toMatchObject({ MemorySize: 512, Timeout: 10 });
  });

  it('grants read-only routes no write actions on the table, and write routes only data actions', () => {
    const writeActions = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    // A function answering several rows (edge-links) holds the strongest grant among them.
    const rank = { none: 0, read: 1, readWrite: 2 } as const;
    for (const row of routeTable) {
      const table = routeTable
        .filter((r) => r.handler === row.handler)
        .reduce((a, r) => (rank[r.grants.table] > rank[a] ? r.grants.table : a), row.grants.table);
      const route = { ...row, grants: { ...row.grants, table } };
      const fn = stack.functions.get(route.handler)!;
      const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
      const policies = resourcesOf('AWS::IAM::Policy').filter(([, p]) =>
        p.Properties.Roles.some((r: any) => r.Ref === roleId),
      );
      // The rate limiter's counter grant (UpdateItem on RATE# partitions only) is checked in rate-limits.test.ts.
      // So is the key last-use grant (UpdateItem of lastUsedOn on APIKEY# partitions only), in least-privilege.test.ts.
      const isCounterGrant = (s: any) =>
        ['RATE#*', 'APIKEY#*'].includes(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']?.join());
      const actions = policies.flatMap(([, p]) =>
        p.Properties.PolicyDocument.Statement.filter((s: any) => !isCounterGrant(s)).flatMap((s: any) =>
          [s.Action].flat(),
        ),
      );
      if (route.grants.table === 'none') expect(actions.filter((a: string) => a.startsWith('dynamodb:'))).toEqual([]);
      if (route.grants.table === 'read') {
        expect(actions).toContain('dynamodb:GetItem');
        for (const a of writeActions) expect(actions).not.toContain(a);
      }
      // A route narrowed to some actions (sign-out only deletes its session; sign-in reads the key
      // it checks, the counter-like APIKEY# statement) holds those.
      const narrowed = route.grants.actions;
      if (route.grants.table === 'readWrite' && narrowed) {
        const all = policies.flatMap(([, p]) =>
          p.Properties.PolicyDocument.Statement.flatMap((s: any) => [s.Action].flat()),
        );
        expect(all).toEqual(expect.arrayContaining([...narrowed]));
      } else if (route.grants.table === 'readWrite')
        expect(actions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:GetItem']));
      expect(actions.some((a: string) => a === '*' || a === 'dynamodb:*')).toBe(false);
    }
  });

  it('defines the table from the shared definition: on-demand, PITR, TTL, deletion protection, KEYS_ONLY indexes', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      Replicas: [
        Match.objectLike({
          DeletionProtectionEnabled: true,
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        }),
      ],
      GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((i) =>
        Match.objectLike({ IndexName: i.indexName, Projection: { ProjectionType: 'KEYS_ONLY' } }),
      ),
    });
  });

  it('serves the management API routes with least-privilege table access, and the OpenAPI document with none', () => {
    const routeKeys = resourcesOf('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    for (const key of [
      'GET /v1/links',
      'PATCH /v1/links/{linkId}',
      'DELETE /v1/links/{linkId}',
      'GET /v1/deep-links',
      'POST /v1/deep-links',
      'GET /v1/deep-links/{linkId}',
      'PATCH /v1/deep-links/{linkId}',
      'DELETE /v1/deep-links/{linkId}',
      'GET /v1/domains',
      'GET /v1/domains/{domainId}',
      'GET /v1/openapi.json',
    ])
      expect(routeKeys).toContain(key);
    const grants = Object.fromEntries(routeTable.map((r) => [r.handler, r.grants.table]));
    expect(grants).toMatchObject({
      'links-list': 'read',
      'deep-links-list': 'read',
      'domains-list': 'read',
      'domains-get': 'read',
      'links-patch': 'readWrite',
      'links-archive': 'readWrite',
      'deep-links-patch': 'readWrite',
      'openapi-get': 'none',
    });
    const openapiRoute = resourcesOf('AWS::ApiGatewayV2::Route').find(
      ([, r]) => r.Properties.RouteKey === 'GET /v1/openapi.json',
    )!;
    expect(openapiRoute[1].Properties.AuthorizationType ?? 'NONE').toBe('NONE');
  });

  it('lists read link ids from the GSIs: list roles may Query the indexes and BatchGet items', () => {
    const fn = stack.functions.get('links-list')!;
    const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
    const statements = resourcesOf('AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    const actions = statements.flatMap((s: any) => [s.Action].flat());
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 'dynamodb:BatchGetItem']));
    const resources = JSON.stringify(statements.flatMap((s: any) => [s.Resource].flat()));
    expect(resources).toContain('/index/*');
  });
});
