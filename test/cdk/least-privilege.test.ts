import { describe, expect, it } from 'vitest';
import { tableReadActions, tableWriteActions } from '@lib/service-function';
import { routeTable } from '@shared/routes/route-table';
import { rateLimitKindOf } from '@shared/rate-limits/rate-limit-policy';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;
const tableId = Object.keys(resources).find(
  (id) => resources[id].Type === 'AWS::DynamoDB::GlobalTable' || resources[id].Type === 'AWS::DynamoDB::Table',
)!;

/** The statements of a route's role that name the table (or its indexes). */
const tableStatementsOf = (handler: string) => {
  const fn = stack.functions.get(handler)!;
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: any) => role.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as any[])
    .filter((s) => JSON.stringify(s.Resource).includes(tableId));
};
const actionsOf = (statement: any) => [statement.Action].flat() as string[];

describe('least privilege on the table, per route', () => {
  it('has a table under test', () => {
    expect(tableId).toBeDefined();
  });

  for (const route of routeTable) {
    it(`${route.method} ${route.path} (${route.handler}): ${route.grants.table}${route.grants.writes ? ` writes ${route.grants.writes.join(' ')}` : ''}`, () => {
      const statements = tableStatementsOf(route.handler);
      if (routeTable.filter((r) => r.handler === route.handler).every((r) => r.grants.table === 'none')) {
        expect(statements.filter((s) => !/RATE#|APIKEY#/.test(JSON.stringify(s.Condition ?? {})))).toEqual([]);
        return;
      }
      const reads = statements.filter((s) => actionsOf(s).includes('dynamodb:GetItem'));
      expect(reads).toHaveLength(1);
      expect(actionsOf(reads[0]).sort()).toEqual([...tableReadActions].sort());
      expect(reads[0].Condition).toBeUndefined();
      const indexes = routeTable.filter((r) => r.handler === route.handler).some((r) => r.grants.indexes === true);
      expect(JSON.stringify(reads[0].Resource).includes('/index/*')).toBe(indexes);

      // One function per handler: its grants are the union of its rows (the edge-links function serves several).
      const rows = routeTable.filter((r) => r.handler === route.handler);
      const rateLimited = rows.some((r) => rateLimitKindOf(r.credential));
      const allWrites = statements.filter((s) => actionsOf(s).some((a) => tableWriteActions.includes(a)));
      // Rate-limit counters of a read route: UpdateItem on RATE# partitions only (bindRateLimitCounters).
      const rateCounters = allWrites.filter(
        (s) =>
          JSON.stringify(s.Condition ?? {}) ===
            JSON.stringify({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } }) &&
          actionsOf(s).join() === 'dynamodb:UpdateItem',
      );
      // The day-precision last use of API keys on a keyed route (bindKeyLastUsed): UpdateItem of lastUsedOn on APIKEY# only.
      const keyLastUsed = allWrites.filter((s) => JSON.stringify(s.Condition ?? {}).includes('APIKEY#'));
      if (rows.some((r) => r.credential !== 'none')) {
        expect(keyLastUsed).toHaveLength(1);
        expect(actionsOf(keyLastUsed[0])).toEqual(['dynamodb:UpdateItem']);
        expect(keyLastUsed[0].Condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'lastUsedOn'] },
          StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
        });
      } else {
        expect(keyLastUsed).toEqual([]);
      }
      const writes = allWrites.filter((s) => !rateCounters.includes(s) && !keyLastUsed.includes(s));
      if (!rows.some((r) => r.grants.table === 'readWrite')) {
        expect(writes).toEqual([]);
      } else {
        const expected = [
          ...new Set([...rows.flatMap((r) => r.grants.writes ?? []), ...(rateLimited ? ['RATE#'] : [])]),
        ];
        expect(writes).toHaveLength(1);
        expect(actionsOf(writes[0]).sort()).toEqual([...tableWriteActions].sort());
        expect(writes[0].Resource).toEqual({ 'Fn::GetAtt': [tableId, 'Arn'] });
        expect(writes[0].Condition).toEqual({
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': expected.map((prefix) => `${prefix}*`) },
        });
      }
      for (const s of statements) {
        expect(actionsOf(s)).not.toContain('dynamodb:Scan');
        expect(actionsOf(s).some((a) => a.includes('*'))).toBe(false);
      }
    });
  }

  it('every write route names its key prefixes, and no route may write API keys, secrets, hosts or origins', () => {
    for (const route of routeTable.filter((r) => r.grants.table === 'readWrite')) {
      expect(route.grants.writes?.length, route.handler).toBeGreaterThan(0);
      for (const prefix of route.grants.writes!)
        expect(['APIKEY#', 'SECRET', 'HOST#', 'ORIGIN#']).not.toContain(prefix);
    }
  });

  it('the unauthenticated edge writes only click counters, password attempts and tap attribution records', () => {
    const edgeWrites = new Set(routeTable.filter((r) => r.api === 'edge').flatMap((r) => r.grants.writes ?? []));
    expect([...edgeWrites].sort()).toEqual(['ATTR#', 'CLICKID#', 'FP#', 'LINK#', 'PWTRY#']);
  });
});
