import { describe, expect, it } from 'vitest';
import { tableReadActions, tableWriteActions, type ServiceFunction } from '@lib/service-function';
import {
  clickCountersConsumer,
  lakeCompactionConsumer,
  outboundPublisherConsumer,
  redriveConsumer,
  webhookDeliveryConsumer,
} from '@shared/routes/consumer-specs';
import type { FunctionSpec } from '@shared/routes/function-spec';
import { routeTable } from '@shared/routes/route-table';
import { functionTableAccess, refusedAccess } from '@shared/routes/table-access';
import { synthStack } from '@test/support/synth-stack';

const { template, stack } = synthStack();
const resources = template.toJSON().Resources as Record<string, any>;
const tableId = Object.keys(resources).find(
  (id) => resources[id].Type === 'AWS::DynamoDB::GlobalTable' || resources[id].Type === 'AWS::DynamoDB::Table',
)!;

const STREAM_READS = [
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
];

/** The functions that are not routes but touch the table, with their specs. */
const consumers: Array<[FunctionSpec, ServiceFunction]> = [
  [clickCountersConsumer, stack.eventPipeline.counters],
  [lakeCompactionConsumer, stack.lakeCompaction.fn],
  [redriveConsumer, stack.eventSpool.redrive],
  [outboundPublisherConsumer, stack.outbound.publisher],
  [webhookDeliveryConsumer, stack.outbound.delivery],
];

/** The statements of a function's role that name the table (or its indexes). */
const tableStatementsOf = (handler: string) => {
  const fn = stack.functions.get(handler) ?? consumers.find(([row]) => row.handler === handler)![1];
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as never);
  return (
    Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: any) => role.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as any[])
      .filter((s) => JSON.stringify(s.Resource).includes(tableId))
      // Reading the table's stream (the outbound publisher's event source) is no item access.
      .filter((s) => !([s.Action].flat() as string[]).every((a) => STREAM_READS.includes(a)))
  );
};
const actionsOf = (statement: any) => [statement.Action].flat() as string[];
const leadingKeysOf = (statement: any) =>
  (statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? []) as string[];
const onIndexes = (statement: any) => JSON.stringify(statement.Resource).includes('/index/*');
/** Whether a statement's LeadingKeys (`PREFIX*` patterns) let it reach a partition key value. */
const reaches = (statement: any, partitionKey: string) =>
  leadingKeysOf(statement).some((pattern) => partitionKey.startsWith(pattern.replace(/\*$/, '')));

const handlers = [...new Set(routeTable.map((r) => r.handler))].filter((h) => stack.functions.has(h));
const rowOf = (handler: string) =>
  routeTable.find((r) => r.handler === handler) ?? consumers.find(([row]) => row.handler === handler)![0];
const edgeHandlers = [...new Set(routeTable.filter((r) => r.api === 'edge').map((r) => r.handler))];
const clientHandlers = [...new Set(routeTable.filter((r) => r.credential === 'publishable').map((r) => r.handler))];
const READS = new Set<string>([...tableReadActions, 'dynamodb:Scan']);
const LINK_WRITES = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

describe('IAM by access pattern: table grants name the key prefixes each function reads and writes', () => {
  it('has a table and the functions under test', () => {
    expect(tableId).toBeDefined();
    expect(edgeHandlers.sort()).toEqual(['edge-launch-events', 'edge-links', 'edge-well-known']);
    expect(clientHandlers.length).toBeGreaterThanOrEqual(5);
  });

  for (const handler of [...handlers, ...consumers.map(([row]) => row.handler)]) {
    it(`${handler}: exactly the statements computed from its rows, each with dynamodb:LeadingKeys`, () => {
      const statements = tableStatementsOf(handler);
      const expected = functionTableAccess(rowOf(handler));
      expect(statements.map((s) => s.Sid).sort()).toEqual(expected.map((s) => s.sid).sort());
      for (const want of expected) {
        const got = statements.find((s) => s.Sid === want.sid);
        expect(actionsOf(got).sort(), want.sid).toEqual([...want.actions].sort());
        expect(onIndexes(got), want.sid).toBe(want.on === 'indexes');
        expect(leadingKeysOf(got), want.sid).toEqual(want.leadingKeys.map((p) => `${p}*`));
      }
      for (const s of statements) {
        // Every table statement is scoped by partition key; nothing is granted on the whole table.
        expect(leadingKeysOf(s).length, JSON.stringify(s)).toBeGreaterThan(0);
        expect(leadingKeysOf(s).every((p) => p !== '*' && p.endsWith('*'))).toBe(true);
        expect(actionsOf(s)).not.toContain('dynamodb:Scan');
        expect(actionsOf(s).some((a) => a.includes('*'))).toBe(false);
      }
    });
  }

  it('the edge functions cannot read WEBHOOKS# (signing secrets) or APIKEY# items, nor write links', () => {
    for (const handler of edgeHandlers) {
      const statements = tableStatementsOf(handler);
      expect(statements.length, handler).toBeGreaterThan(0);
      for (const s of statements) {
        if (actionsOf(s).some((a) => READS.has(a))) {
          for (const forbidden of ['WEBHOOKS#ws_1', 'APIKEY#hash', 'EVENTLOG#ws_1#0'])
            expect(reaches(s, forbidden), `${handler} ${s.Sid} reads ${forbidden}`).toBe(false);
        }
        if (actionsOf(s).some((a) => LINK_WRITES.includes(a)))
          expect(reaches(s, 'LINK#lnk_1'), `${handler} ${s.Sid} writes LINK#`).toBe(false);
        // No API key of any kind: the edge has no credential (no ReadApiKey / KeyLastUsed statement).
        expect(reaches(s, 'APIKEY#hash'), `${handler} ${s.Sid}`).toBe(false);
      }
    }
  });

  it('client functions read APIKEY# only by GetItem (the key they authenticate with), besides their own prefixes', () => {
    for (const handler of clientHandlers) {
      const statements = tableStatementsOf(handler);
      const apiKey = statements.filter((s) => reaches(s, 'APIKEY#hash'));
      // ReadApiKey (GetItem) and KeyLastUsed (UpdateItem of lastUsedOn only), nothing else.
      expect(apiKey.map((s) => s.Sid).sort(), handler).toEqual(['KeyLastUsed', 'ReadApiKey']);
      expect(actionsOf(apiKey.find((s) => s.Sid === 'ReadApiKey'))).toEqual(['dynamodb:GetItem']);
      expect(leadingKeysOf(apiKey.find((s) => s.Sid === 'ReadApiKey'))).toEqual(['APIKEY#*']);
      expect(apiKey.find((s) => s.Sid === 'KeyLastUsed').Condition).toEqual({
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'lastUsedOn'] },
        StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
      });
      // Their other reads: the prefixes their rows declare (reads and writes) and the workspace's limits.
      const declared = routeTable
        .filter((r) => r.handler === handler)
        .flatMap((r) => [...(r.grants.reads ?? []), ...(r.grants.writes ?? [])]);
      const reads = statements.filter((s) => s.Sid === 'Read');
      expect(reads).toHaveLength(1);
      expect(leadingKeysOf(reads[0]).sort()).toEqual([...new Set([...declared, 'WS#'])].map((p) => `${p}*`).sort());
      for (const forbidden of ['WEBHOOKS#ws_1', 'EVENTLOG#ws_1#0', 'IDEM#ws_1', 'ANALYTICS#ws_1', 'ORIGIN#o'])
        expect(reaches(reads[0], forbidden), `${handler} reads ${forbidden}`).toBe(false);
    }
  });

  it('the consumers get only the item actions they use, on their prefixes (no Query, Put or Delete of links)', () => {
    /** Every (action, prefix) pair a function's table statements grant. */
    const pairs = (handler: string) =>
      tableStatementsOf(handler)
        .flatMap((s) => actionsOf(s).flatMap((a) => leadingKeysOf(s).map((p) => `${a} ${p}`)))
        .sort();
    const counterAccess = ['dynamodb:GetItem LINK#*', 'dynamodb:UpdateItem LINK#*'];
    // The counters also nominate links that just turned hot at the edge, in the hot-set item only.
    expect(pairs(clickCountersConsumer.handler)).toEqual([...counterAccess, 'dynamodb:UpdateItem EDGEHOT#*'].sort());
    expect(pairs(lakeCompactionConsumer.handler)).toEqual(counterAccess);
    expect(pairs(redriveConsumer.handler)).toEqual(['dynamodb:GetItem ERASED#*']);
    expect(pairs(outboundPublisherConsumer.handler)).toEqual([
      'dynamodb:BatchWriteItem EVENTLOG#*',
      'dynamodb:PutItem EVENTLOG#*',
      'dynamodb:Query WEBHOOKS#*',
    ]);
    expect(pairs(webhookDeliveryConsumer.handler)).toEqual([
      'dynamodb:DeleteItem WEBHOOKSENT#*',
      'dynamodb:GetItem WEBHOOKS#*',
      'dynamodb:PutItem WEBHOOKSENT#*',
      'dynamodb:UpdateItem WEBHOOKS#*',
      'dynamodb:UpdateItem WEBHOOKSENT#*',
    ]);
    // On WEBHOOKS#, the delivery may only mark an endpoint disabled, returning nothing.
    const disable = tableStatementsOf(webhookDeliveryConsumer.handler).find((s) => s.Sid === 'UpdateAttributes');
    expect(disable.Condition).toEqual({
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['WEBHOOKS#*'] },
      'ForAllValues:StringEquals': { 'dynamodb:Attributes': ['pk', 'sk', 'enabled', 'disabledAt', 'disabledReason'] },
      StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' },
    });
    for (const [row] of consumers) expect(tableStatementsOf(row.handler).some(onIndexes), row.handler).toBe(false);
  });

  it('index Queries are granted on the index partitions a function names (LeadingKeys of the index key), only to list routes', () => {
    for (const handler of handlers) {
      const indexes = tableStatementsOf(handler).filter(onIndexes);
      const declared = [
        ...new Set(routeTable.filter((r) => r.handler === handler).flatMap((r) => r.grants.indexes ?? [])),
      ];
      if (declared.length === 0) {
        expect(indexes, handler).toEqual([]);
        continue;
      }
      expect(indexes).toHaveLength(1);
      expect(actionsOf(indexes[0])).toEqual(['dynamodb:Query']);
      expect(leadingKeysOf(indexes[0])).toEqual(declared.map((p) => `${p}*`));
      expect(reaches(indexes[0], 'KEYID#key_1'), handler).toBe(false);
      expect(reaches(indexes[0], 'WEBHOOK#wh_1'), handler).toBe(false);
    }
    expect(tableStatementsOf('links-list').some(onIndexes)).toBe(true);
  });

  it('the template and the local grant guard agree: what the guard lets through, a statement allows', () => {
    const calls: Array<[string, Record<string, unknown>]> = [
      ['GetItemCommand', { Key: { pk: 'WEBHOOKS#ws_1', sk: 'WEBHOOK#wh_1' } }],
      ['GetItemCommand', { Key: { pk: 'APIKEY#hash', sk: 'APIKEY' } }],
      ['GetItemCommand', { Key: { pk: 'SLUG#go.example.com#k', sk: 'SLUG' } }],
      ['UpdateItemCommand', { Key: { pk: 'LINK#lnk_1', sk: 'LINK' }, UpdateExpression: 'SET clicks = :n' }],
      ['QueryCommand', { KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': 'EVENTLOG#ws_1#0' } }],
      ['GetItemCommand', { Key: { pk: 'LINK#lnk_1', sk: 'LINK' } }],
      ['DeleteItemCommand', { Key: { pk: 'LINK#lnk_1', sk: 'LINK' } }],
      ['GetItemCommand', { Key: { pk: 'ERASED#ws_1', sk: 'ERASED' } }],
    ];
    for (const handler of [...handlers, ...consumers.map(([row]) => row.handler)]) {
      const statements = tableStatementsOf(handler);
      for (const [command, input] of calls) {
        const guardAllows = refusedAccess(functionTableAccess(rowOf(handler)), command, input) === null;
        const action = `dynamodb:${command.replace(/Command$/, '')}`;
        const pk = (input.Key as { pk?: string } | undefined)?.pk ?? 'EVENTLOG#ws_1#0';
        const templateAllows = statements.some(
          (s) =>
            !onIndexes(s) &&
            actionsOf(s).includes(action) &&
            reaches(s, pk) &&
            !s.Condition?.['ForAllValues:StringEquals'],
        );
        expect(guardAllows, `${handler} ${command} ${pk}`).toBe(templateAllows);
      }
    }
  });

  it('every write route names its key prefixes, and no route may write API keys, secrets, hosts, origins or links from the edge', () => {
    for (const route of routeTable.filter((r) => r.grants.table === 'readWrite')) {
      expect(route.grants.writes?.length, route.handler).toBeGreaterThan(0);
      for (const prefix of route.grants.writes!)
        expect(['APIKEY#', 'SECRET', 'HOST#', 'ORIGIN#']).not.toContain(prefix);
    }
    const edgeWrites = new Set(routeTable.filter((r) => r.api === 'edge').flatMap((r) => r.grants.writes ?? []));
    expect([...edgeWrites].sort()).toEqual(['ATTR#', 'CLICKID#', 'FP#', 'PWTRY#']);
    for (const s of handlers.flatMap(tableStatementsOf))
      if (actionsOf(s).some((a) => (tableWriteActions as readonly string[]).includes(a)))
        expect(leadingKeysOf(s).length).toBeGreaterThan(0);
  });
});
