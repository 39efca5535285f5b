import { writeTestArtifact } from '@test/support/test-artifacts';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapResult } from '@shared/admin/bootstrap';
import type { KinesisStreamRecord } from 'aws-lambda';
import { createLocalLakeStore } from '@shared/admin/lake-store';
import { scanTable, type TableItem } from '@shared/admin/workspace-items';
import { compactLake } from '@shared/analytics/lake/compact-lake';
import { compactedWorkspacePath, dailyWorkspacePath } from '@shared/analytics/lake/lake-layout';
import { hashApiKey } from '@shared/auth/api-keys';
import type { EventRecord } from '@shared/events/event-record';
import { spoolMessages } from '@shared/events/event-spool';
import { formatRealtimeLogLine } from '@shared/edge/hot-links/realtime-log';
import { keptKinesisFailure, kinesisDataOf, parseKeptFailure } from '@shared/events/kept-failure-record';
import { localStreamFailuresDir } from '@shared/events/local-event-stream';
import { redriveSpooledMessages } from '@shared/events/redrive-events';
import type { StreamSink } from '@shared/events/stream-sink';
import { createErasedCheck } from '@shared/tenancy/erased-workspaces';
import { addWebhookEndpoint } from '@shared/outbound/manage-webhooks';
import { runAdminFailing, runAdminJson } from '@test/support/admin-cli';
import { edgeRequest } from '@test/support/edge-client';
import { http } from '@test/support/http-client';
import { readLake } from '@test/support/lake-reader';
import { startTestStack, type TestStack } from '@test/support/test-stack';
import { startWebhookReceiver, type WebhookReceiver } from '@test/support/webhook-receiver';
import { waitUntil } from '@test/support/wait-until';
import { IPHONE_UA } from './route-cases';

/**
 * Two workspaces with every kind of data the service keeps (links with tags, a deep link, a
 * password link with a wrong try, idempotent creates, clicks on the edge and through the client
 * API, attribution, first opens, customer events, analytics, a webhook endpoint with its event
 * log, rate-limit counters). Export of A is complete; erasure of A leaves no table item or lake
 * record of A (only its tombstone), and B's items, lake lines and analytics exactly as they were;
 * replays of copies the erasure cannot reach (a spooled message, a batch kept later, an errors/
 * object) drop A's events and bring back B's.
 */
let t: TestStack;
let hooks: WebhookReceiver;
const figures: Record<string, unknown> = {};
const ANDROID_UA = 'Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UD1A.230803.041)';

beforeAll(async () => {
  t = await startTestStack();
  return () => t.stop();
});
beforeAll(async () => {
  hooks = await startWebhookReceiver();
  return () => hooks.close();
});
afterAll(() => {
  writeTestArtifact('workspace-erasure-report.json', figures);
});

interface Populated {
  links: string[];
  deepLinks: string[];
  secret: string;
  /** The webhook endpoint's id: its delivery markers (WEBHOOKSENT#<endpoint>#...) name only it. */
  endpointId: string;
}

const populate = async (tenant: BootstrapResult, tag: string): Promise<Populated> => {
  const server = { 'api-key': tenant.serverKey };
  const browser = {
    'x-publishable-key': tenant.publishableKeys.browser.key,
    origin: tenant.publishableKeys.browser.origin,
    'user-agent': IPHONE_UA,
  };
  const android = {
    authorization: `Bearer ${tenant.publishableKeys.android.key}`,
    'x-android-package': tenant.publishableKeys.android.package,
    'x-android-sha256-cert': tenant.publishableKeys.android.sha256Cert,
    'x-service-platform': 'android',
    'x-service-environment': 'production',
    'user-agent': ANDROID_UA,
  };
  const { secret, id: endpointId } = await addWebhookEndpoint(tenant.workspaceId, hooks.url, [
    'link.created',
    'attribution.first_open',
    'customer_event.received',
  ]);
  const links: string[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: { ...server, 'idempotency-key': `${tag}-create-${i}` },
      json: { url: `https://example.com/${tag}/${i}`, domain: tenant.domain, tags: [`${tag}-promo`] },
    });
    expect(res.status).toBe(201);
    links.push(res.body.data.id);
  }
  const locked = await http(t.baseUrl, 'POST', '/v1/links', {
    headers: server,
    json: { url: `https://example.com/${tag}/locked`, domain: tenant.domain, password: 'open sesame' },
  });
  expect(locked.status).toBe(201);
  links.push(locked.body.data.id);
  const wrong = await edgeRequest(t.edgeUrl, {
    host: tenant.domain,
    path: `/${locked.body.data.key}`,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': IPHONE_UA },
    body: 'password=nope',
  });
  expect(wrong.status).toBe(401);
  const deep = await http(t.baseUrl, 'POST', '/v1/deep-links', {
    headers: server,
    json: { deepLinkAppId: tenant.deepLinkApp.id },
  });
  expect(deep.status).toBe(201);
  const first = (await http(t.baseUrl, 'GET', `/v1/links/${links[0]}`, { headers: server })).body.data;
  for (let i = 0; i < 3; i++) {
    expect(
      (
        await edgeRequest(t.edgeUrl, {
          host: first.domain,
          path: `/${first.key}`,
          headers: { 'user-agent': IPHONE_UA },
        })
      ).status,
    ).toBe(302);
  }
  // The edge records clicks after answering: all of them written before anything is read.
  await t.idle();
  const click = await http(t.baseUrl, 'POST', '/v1/client/attribution/click', {
    headers: { ...browser, 'user-agent': ANDROID_UA },
    json: { linkId: links[1] },
  });
  expect(click.status).toBe(201);
  const opened = await http(t.baseUrl, 'POST', '/v1/client/first-open', {
    headers: android,
    json: { installId: `${tag}-install`, clickId: click.body.data.clickId },
  });
  expect(opened.status).toBe(201);
  const events = await http(t.baseUrl, 'POST', '/v1/client/events', {
    headers: browser,
    json: { events: [{ name: 'add_to_cart', eventId: `${tag}-evt-1` }] },
  });
  expect(events.status).toBe(202);
  expect((await http(t.baseUrl, 'GET', `/v1/analytics/links/${links[0]}?range=7d`, { headers: server })).status).toBe(
    200,
  );
  // Everything published: the last link's event reached the endpoint and no delivery is pending.
  await waitUntil(
    () => hooks.events().some((e) => e.type === 'link.created' && e.data.id === links[2]),
    `${tag}'s link.created`,
  );
  return { links, deepLinks: [deep.body.data.id], secret, endpointId };
};

const allItems = async (): Promise<TableItem[]> => {
  const items: TableItem[] = [];
  await scanTable((item) => items.push(item));
  return items;
};
const byKey = (items: TableItem[]) => new Map(items.map((i) => [`${i.pk}|${i.sk}`, i]));
const readJsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('admin export-workspace and delete-workspace', () => {
  it('exports all of one workspace, then erases it and nothing of the other', async () => {
    const a = await populate(t.tenantA, 'a');
    const b = await populate(t.tenantB, 'b');
    await waitUntil(() => t.stack.outbound.pendingDeliveries() === 0, 'an empty delivery queue');
    const A = t.tenantA.workspaceId;
    const B = t.tenantB.workspaceId;

    const lakeDir = process.env.LOCAL_LAKE_DIR!;
    const clickFirstLink = async (tenant: BootstrapResult, linkId: string) => {
      const link = (await http(t.baseUrl, 'GET', `/v1/links/${linkId}`, { headers: { 'api-key': tenant.serverKey } }))
        .body.data;
      expect(
        (
          await edgeRequest(t.edgeUrl, {
            host: link.domain,
            path: `/${link.key}`,
            headers: { 'user-agent': IPHONE_UA },
          })
        ).status,
      ).toBe(302);
      await t.idle();
    };
    // Some history compacted (per-workspace Parquet), some still raw (shared, hash-sharded objects).
    const compactedLines = readLake();
    const compaction = await compactLake(lakeDir, { now: new Date(Date.now() + 3 * 3_600_000) });
    expect(compaction.workspaceDays).toBeGreaterThanOrEqual(2);
    await clickFirstLink(t.tenantA, a.links[0]!);
    await clickFirstLink(t.tenantB, b.links[0]!);
    // A raw object of A's shard shared with another workspace's line: erasure rewrites it.
    const aLine = readLake().find((l) => l.line.workspaceId === A)!;
    const bLine = readLake().find((l) => l.line.workspaceId === B)!.line;
    writeFileSync(
      path.join(lakeDir, aLine.dir, 'shared-object.json'),
      `${JSON.stringify(bLine)}\n${JSON.stringify({ ...aLine.line, eventId: `${aLine.line.eventId}-x` })}\n`,
    );
    const aEventIds = new Set(
      [...compactedLines, ...readLake()].filter((l) => l.line.workspaceId === A).map((l) => l.line.eventId as string),
    );
    const filesOf = (dir: string) =>
      existsSync(dir)
        ? (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.parquet')).sort()
        : [];
    const compactedA = path.join(lakeDir, compactedWorkspacePath(A));
    const compactedB = path.join(lakeDir, compactedWorkspacePath(B));
    const dailyA = path.join(lakeDir, dailyWorkspacePath(A));
    expect(filesOf(compactedA).length).toBeGreaterThan(0);
    // The compaction runs 3 h ahead: from 21:00 UTC on, that closes today, and the daily merge
    // writes A's day under daily/ too. The erasure deletes both.
    const filesOfCount = filesOf(compactedA).length + filesOf(dailyA).length;
    const bCompactedBefore = filesOf(compactedB).map((f) => [
      f,
      readFileSync(path.join(compactedB, f)).toString('base64'),
    ]);
    expect(bCompactedBefore.length).toBeGreaterThan(0);

    // Export: every entity and every event of A, nothing of B, no secret.
    const out = mkdtempSync(path.join(tmpdir(), 'export-'));
    const exported = await runAdminJson(['export-workspace', A, '--out', out]);
    expect(exported.files['events.jsonl']).toBe(aEventIds.size);
    expect(aEventIds.size).toBeGreaterThanOrEqual(8);
    expect(new Set(readJsonl(path.join(out, 'events.jsonl')).map((e) => e.eventId))).toEqual(aEventIds);
    expect(
      readJsonl(path.join(out, 'links.jsonl'))
        .map((l) => l.id)
        .sort(),
    ).toEqual([...a.links].sort());
    expect(readJsonl(path.join(out, 'deep-links.jsonl')).map((l) => l.id)).toEqual(a.deepLinks);
    expect(readJsonl(path.join(out, 'domains.jsonl')).map((d) => d.domain)).toContain(t.tenantA.domain);
    expect(readJsonl(path.join(out, 'apps.jsonl')).map((d) => d.id)).toContain(t.tenantA.deepLinkApp.id);
    expect(readJsonl(path.join(out, 'webhook-endpoints.jsonl'))).toHaveLength(1);
    // The audit log: an entry for each link created through the API, each about one of A's links.
    const audit = readJsonl(path.join(out, 'audit-log.jsonl'));
    expect(
      audit
        .filter((e) => e.action === 'link.created')
        .map((e) => e.resource.id)
        .sort(),
    ).toEqual([...a.links].sort());
    expect(readJsonl(path.join(out, 'api-keys.jsonl')).length).toBeGreaterThanOrEqual(5);
    const everything = readdirSync(out)
      .map((f) => readFileSync(path.join(out, f), 'utf8'))
      .join('\n');
    expect(everything).not.toContain(B);
    expect(everything).not.toContain(hashApiKey(t.tenantA.serverKey));
    expect(everything).not.toContain(a.secret.replace(/^whsec_/, ''));
    expect(everything).not.toContain('passwordHash');
    figures.exportedLines = exported.files;

    const aIds = [A, ...a.links, ...a.deepLinks, a.endpointId];
    const mentionsA = (i: TableItem) => aIds.some((id) => JSON.stringify(i).includes(id));
    const aRawLines = readLake().filter((l) => l.line.workspaceId === A).length;
    const bLakeBefore = readLake().filter((l) => l.line.workspaceId === B);
    const bAnalytics = async () => {
      const links = (
        await http(t.baseUrl, 'GET', '/v1/links?limit=100', { headers: { 'api-key': t.tenantB.serverKey } })
      ).body.data as Array<{ id: string }>;
      const stats = await Promise.all(
        links.map(
          async (l) =>
            (
              await http(t.baseUrl, 'GET', `/v1/analytics/links/${l.id}?range=7d`, {
                headers: { 'api-key': t.tenantB.serverKey },
              })
            ).body.data,
        ),
      );
      return { links: links.map((l) => l.id).sort(), stats };
    };
    const bAnalyticsBefore = await bAnalytics();

    // A batch of edge click-log lines kept before the erasure: a line names a link, not a workspace.
    const linkOf = async (tenant: BootstrapResult, id: string) =>
      (await http(t.baseUrl, 'GET', `/v1/links/${id}`, { headers: { 'api-key': tenant.serverKey } })).body.data as {
        domain: string;
        key: string;
      };
    const logLineOf = (link: { domain: string; key: string }, n: number) =>
      formatRealtimeLogLine({
        timestamp: (Date.now() / 1000).toFixed(3),
        'cs-method': 'GET',
        'cs-host': link.domain,
        'cs-uri-stem': `/${link.key}`,
        'x-edge-request-id': `erasure-${String(n)}-${'e'.repeat(40)}`,
        'x-edge-result-type': 'FunctionGeneratedResponse',
      });
    const [aLogLine, bLogLine] = [
      logLineOf(await linkOf(t.tenantA, a.links[0]!), 1),
      logLineOf(await linkOf(t.tenantB, b.links[0]!), 2),
    ];
    const logRecord = (line: string, sequence: number) =>
      ({
        eventID: `shardId-edge-logs:${String(sequence)}`,
        kinesis: {
          sequenceNumber: String(sequence),
          partitionKey: 'p',
          data: Buffer.from(`${line}\n`).toString('base64'),
        },
      }) as KinesisStreamRecord;
    const keptLogs = createLocalLakeStore(localStreamFailuresDir(lakeDir));
    await keptLogs.putText(
      'edge-click-logs-before-erasure.json',
      JSON.stringify(
        keptKinesisFailure([logRecord(aLogLine, 1), logRecord(bLogLine, 2)], 'arn', 'RecordAgeExceeded', new Date()),
      ),
    );

    // Without the confirmation, nothing happens.
    const untouched = await allItems();
    const refused = await runAdminFailing(['delete-workspace', A, '--confirm', B]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--confirm');
    expect(byKey(await allItems())).toEqual(byKey(untouched));

    const before = await allItems();
    const othersBefore = byKey(before.filter((i) => !mentionsA(i)));
    expect(before.filter(mentionsA).length).toBeGreaterThan(20);
    const erasedAt = Date.now();
    const erased = await runAdminJson(['delete-workspace', A, '--confirm', A]);
    // The kept click-log batch keeps only B's line.
    const keptLogsAfter = parseKeptFailure(await keptLogs.getText('edge-click-logs-before-erasure.json'));
    expect(keptLogsAfter.records.map((r) => kinesisDataOf(r as KinesisStreamRecord))).toEqual([`${bLogLine}\n`]);
    expect(erased.keptFailures).toEqual([expect.objectContaining({ objectsRewritten: 1, recordsRemoved: 1 })]);
    await keptLogs.delete(['edge-click-logs-before-erasure.json']);
    const withTombstone = await allItems();
    // The one item the erasure leaves: A's tombstone (only its id), which replays of copies check.
    const tombstones = withTombstone.filter((i) => i.type === 'ERASED');
    expect(tombstones).toEqual([
      { pk: `ERASED#${A}`, sk: 'ERASED', type: 'ERASED', erasedAt: expect.any(String), ttl: expect.any(Number) },
    ]);
    const ttlDays = ((tombstones[0]!.ttl as number) * 1000 - erasedAt) / 86_400_000;
    expect(ttlDays).toBeGreaterThan(30);
    expect(ttlDays).toBeLessThan(38);
    expect(erased.tombstoneUntil).toBe(new Date((tombstones[0]!.ttl as number) * 1000).toISOString());
    const after = withTombstone.filter((i) => i.type !== 'ERASED');

    // Nothing of A left in the table; everything else exactly as it was.
    expect(after.filter(mentionsA)).toEqual([]);
    expect(byKey(after)).toEqual(othersBefore);
    expect(erased.totalItemsErased).toBe(before.length - after.length);
    expect(erased.domains).toContain(t.tenantA.domain);
    for (const kind of [
      'WORKSPACE',
      'APIKEY',
      'ORIGIN',
      'LINK',
      'LINK_ENTRY',
      'SLUG',
      'TAG',
      'DOMAIN',
      'HOST',
      'APP',
      'IDEMPOTENCY',
      'ATTR',
      'OPEN',
      'CEVT',
      'RATE',
      'WEBHOOK',
      'EVENTLOG',
      'PWTRY',
      'AUDIT',
    ]) {
      expect(erased.itemsErased[kind], kind).toBeGreaterThan(0);
    }
    // Nothing of A in the lake; B's lines (the shared object's one included) unchanged.
    expect(readLake().filter((l) => l.line.workspaceId === A)).toEqual([]);
    expect(existsSync(compactedA)).toBe(false);
    expect(existsSync(dailyA)).toBe(false);
    expect((readdirSync(lakeDir, { recursive: true }) as string[]).filter((f) => f.includes(A))).toEqual([]);
    expect(readLake().filter((l) => l.line.workspaceId === B)).toEqual(bLakeBefore);
    expect(filesOf(compactedB).map((f) => [f, readFileSync(path.join(compactedB, f)).toString('base64')])).toEqual(
      bCompactedBefore,
    );
    expect(erased.lake).toMatchObject({
      location: lakeDir,
      rawObjectsRewritten: 1,
      rawRecordsRemoved: aRawLines,
      compactedObjectsDeleted: filesOfCount,
    });
    expect(await bAnalytics()).toEqual(bAnalyticsBefore);
    // A's keys no longer open anything.
    expect(
      (await http(t.baseUrl, 'GET', `/v1/links/${a.links[0]}`, { headers: { 'api-key': t.tenantA.serverKey } })).status,
    ).toBe(401);

    // Copies the erasure cannot reach: a spooled message (SQS cannot delete selectively), a batch a
    // consumer kept after the erasure, a downloaded errors/ object. Their replays drop A's events.
    const aEvent = { ...aLine.line, eventId: `${aLine.line.eventId}-copy` } as EventRecord;
    const bEvent = { ...bLine, eventId: `${String(bLine.eventId)}-copy` } as EventRecord;
    const redriven: EventRecord[] = [];
    const sink: StreamSink = {
      send: () => Promise.reject(new Error('the redrive delivers')),
      deliver: (events) => {
        redriven.push(...events);
        return Promise.resolve({ undelivered: [], reasons: [] });
      },
    };
    const redrive = await redriveSpooledMessages(
      [{ id: 'm1', body: spoolMessages([aEvent, bEvent], 'RetriesExhausted')[0]! }],
      sink,
      { erased: createErasedCheck() },
    );
    expect(redrive).toEqual({ delivered: ['m1'], failed: [], eventsReplayed: 1, eventsDropped: 1 });
    expect(redriven.map((e) => e.workspaceId)).toEqual([B]);

    const failuresDir = localStreamFailuresDir(lakeDir);
    const kinesisRecord = (event: EventRecord, sequence: number): KinesisStreamRecord => ({
      eventSource: 'aws:kinesis',
      eventID: `shardId-erasure-test:${String(sequence)}`,
      eventName: 'aws:kinesis:record',
      eventVersion: '1.0',
      invokeIdentityArn: 'arn:aws:iam::000000000000:role/local',
      awsRegion: 'local',
      eventSourceARN: 'arn:aws:kinesis:local:000000000000:stream/local-events',
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: 'local',
        sequenceNumber: String(sequence),
        data: Buffer.from(JSON.stringify(event)).toString('base64'),
        approximateArrivalTimestamp: Date.now() / 1000,
      },
    });
    await createLocalLakeStore(failuresDir).putText(
      'kept-after-erasure.json',
      JSON.stringify(
        keptKinesisFailure(
          [kinesisRecord(aEvent, 1), kinesisRecord(bEvent, 2)],
          'arn',
          'RecordAgeExceeded',
          new Date(),
        ),
      ),
    );
    const replayed = await runAdminJson(['replay-stream-failures', '--dir', failuresDir]);
    expect(replayed).toMatchObject({ objects: 1, replayed: 1, records: 1, recordsDropped: 1, failed: 0 });

    const errorsDir = mkdtempSync(path.join(tmpdir(), 'erasure-errors-'));
    writeFileSync(
      path.join(errorsDir, 'errors-object'),
      [aEvent, bEvent]
        .map((e) =>
          JSON.stringify({ errorCode: 'x', rawData: Buffer.from(`${JSON.stringify(e)}\n`).toString('base64') }),
        )
        .join('\n'),
    );
    const lakeReplay = await runAdminJson(['replay-lake-errors', errorsDir, '--lake-dir', lakeDir]);
    expect(lakeReplay).toMatchObject({ events: 1, erasedDropped: 1 });
    expect(readLake().filter((l) => l.line.workspaceId === A)).toEqual([]);
    expect(readLake().some((l) => l.line.eventId === bEvent.eventId)).toBe(true);

    Object.assign(figures, {
      itemsErased: erased.totalItemsErased,
      itemsErasedByKind: erased.itemsErased,
      itemsScanned: erased.itemsScanned,
      lakeRawRecordsRemoved: erased.lake.rawRecordsRemoved,
      lakeCompactedObjectsDeleted: erased.lake.compactedObjectsDeleted,
      otherItemsUnchanged: othersBefore.size,
    });
  });
});
