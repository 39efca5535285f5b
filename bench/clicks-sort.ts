/**
 * `npm run bench:clicks-sort [-- <links>]` (default 100,000): the clicks order of one workspace
 * of that many links on DynamoDB Local. Seeds the link items (click counts long-tailed: most
 * links never clicked, a few very often), then times pages of `sort=clicks_desc` / `clicks_asc`
 * (first page, a page deep through cursors, and a tag filter) and counts the link items each
 * page read. Before the clicks index, every page read every link of the workspace.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '@shared/local/dynamodb-local';
import { createTableIfMissing } from '@shared/local/create-table';
import type { LinkRecord } from '@shared/links/link-record';
import { linkItem, linkRepository } from '@shared/links/link-repository';
import { listLinks } from '@shared/links/list-links';
import { listLinksQuerySchema } from '@shared/schemas/list-schemas';
import { ensureSecrets } from '@shared/secrets/signing-secret';
import { batchWrite } from '@shared/db/batch-write';
import { must } from './must';

const count = Number(process.argv[2] ?? 100_000);
const dynamo = await startDynamoDbLocal({});
process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
process.env.TABLE_NAME = 'bench-clicks';
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL = 'silent';
const admin = new DynamoDBClient({
  endpoint: dynamo.endpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
await createTableIfMissing(admin, 'bench-clicks');
admin.destroy();
await ensureSecrets();

/** Deterministic long tail: 70% never clicked, then a Pareto-like spread up to ~10^6. */
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const clicksOf = () => (random() < 0.7 ? 0 : Math.floor(1 / Math.max(1e-6, random()) ** 1.2));
const workspaceId = 'ws_bench_clicks';
const base = Date.parse('2026-01-01T00:00:00Z');
const link = (i: number): LinkRecord => {
  const at = new Date(base + i * 1000).toISOString();
  return {
    id: `lnk_${String(i).padStart(8, '0')}`,
    workspaceId,
    linkType: 'SHORTLINK',
    domainId: 'dom_bench',
    domain: 'bench.example',
    key: `k${i}`,
    url: `https://example.com/${i}`,
    title: `Link ${i}`,
    desktopOverrideUrl: null,
    androidOverrideUrl: null,
    iosOverrideUrl: null,
    expiresAt: null,
    expiredUrl: null,
    passwordHash: null,
    comments: null,
    objects: null,
    tags: i % 10 === 0 ? [{ id: 'tag_bench', name: 'tenth' }] : [],
    tracking: null,
    socialPreview: null,
    deepLinkAppId: null,
    archived: false,
    clicks: clicksOf(),
    botClicks: 0,
    lastClicked: null,
    lastBotClickedAt: null,
    createdAt: at,
    updatedAt: at,
  } as LinkRecord;
};

const seedStarted = performance.now();
const all = Array.from({ length: count }, (_, i) => link(i));
const entries = all.flatMap((l) => [
  linkItem(l),
  ...(l.tags.length
    ? [
        {
          pk: `LINK#${l.id}`,
          sk: 'ENTRY#TAG#tag_bench',
          type: 'LINK_ENTRY',
          linkId: l.id,
          gsi1pk: `${workspaceId}#SHORTLINK#0#TAG#tenth`,
          gsi1sk: `${l.createdAt}#${l.id}`,
          gsi2pk: `${workspaceId}#SHORTLINK#0#TAG#tenth`,
          gsi2sk: `${l.updatedAt}#${l.id}`,
        },
      ]
    : []),
]);
const batches: Record<string, unknown>[][] = [];
for (let i = 0; i < entries.length; i += 25) batches.push(entries.slice(i, i + 25));
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (next < batches.length) {
      // The service's one BatchWriteItem writer: cut by count and bytes, unprocessed items resent.
      await batchWrite(
        must(batches[next++], 'batch').map((Item) => ({ PutRequest: { Item } })),
        { table: 'bench-clicks' },
      );
    }
  }),
);
const seedSeconds = (performance.now() - seedStarted) / 1000;

let itemsRead = 0;
const findByIds = linkRepository.findByIds.bind(linkRepository);
linkRepository.findByIds = async (ids: string[]) => {
  itemsRead += ids.length;
  return findByIds(ids);
};
const page = async (params: Record<string, string>) => {
  itemsRead = 0;
  const started = performance.now();
  const result = await listLinks(workspaceId, 'SHORTLINK', listLinksQuerySchema.parse(params));
  return {
    ms: Math.round(performance.now() - started),
    itemsRead,
    returned: result.data.length,
    cursor: result.pagination.nextCursor,
  };
};
const deep = async (params: Record<string, string>, pages: number) => {
  let cursor: string | null = null;
  let last = { ms: 0, itemsRead: 0, returned: 0, cursor: null as string | null };
  for (let i = 0; i < pages; i++) {
    last = await page({ ...params, ...(cursor ? { cursor } : {}) });
    cursor = last.cursor;
  }
  return last;
};
const rows = {
  'clicks_desc, first page (25)': await page({ sort: 'clicks_desc' }),
  'clicks_desc, 40th page (25)': await deep({ sort: 'clicks_desc' }, 40),
  'clicks_asc, first page (25)': await page({ sort: 'clicks_asc' }),
  'clicks_desc, limit 100': await page({ sort: 'clicks_desc', limit: '100' }),
  'clicks_desc, tag filter (1 in 10)': await page({ sort: 'clicks_desc', tag: 'tenth' }),
};
console.log(
  `clicks sort at ${count.toLocaleString('en-US')} links (seeded in ${seedSeconds.toFixed(1)} s; DynamoDB Local, loopback)\n`,
);
console.log('| page | ms | link items read | returned |\n|---|---|---|---|');
for (const [name, r] of Object.entries(rows)) console.log(`| ${name} | ${r.ms} | ${r.itemsRead} | ${r.returned} |`);
console.log(`\nBefore the clicks index every page read all ${count.toLocaleString('en-US')} link items.`);
await dynamo.stop();
process.exit(0);
