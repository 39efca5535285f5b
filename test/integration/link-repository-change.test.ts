import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapTenant, type BootstrapResult } from '@shared/admin/bootstrap';
import { getDocumentClient, tableName } from '@shared/db/dynamo-client';
import { keys } from '@shared/db/keys';
import { insertLink } from '@shared/links/create-link';
import { applyLinkPatch } from '@shared/links/patch-link';
import { LinkChangedError, linkRepository, SlugTakenError } from '@shared/links/link-repository';
import { domainRepository } from '@shared/tenancy/domain-repository';
import { TEST_ORIGIN } from '@test/support/test-origin';
import { linkChangedEntry } from '@shared/links/link-audit';
import type { LinkRecord } from '@shared/links/link-record';

/** A change written with its audit entry, as patchLink writes it. */
const saveWithEntry = (previous: LinkRecord, next: LinkRecord) =>
  linkRepository.saveChange(previous, next, linkChangedEntry(previous, next, TEST_ORIGIN));

let tenant: BootstrapResult;
beforeAll(async () => {
  tenant = await bootstrapTenant({ baseUrl: 'http://unused', edgeUrl: 'http://unused' });
});

const newLink = async (key: string, tags: string[] = []) => {
  const domain = (await domainRepository.findById(tenant.workspaceId, tenant.domainId))!;
  return insertLink(
    { workspaceId: tenant.workspaceId, linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: 'https://e.com' },
    { key, tags },
    TEST_ORIGIN,
  );
};
const getItem = async (key: { pk: string; sk: string }) =>
  (await getDocumentClient().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
const entriesOf = async (linkId: string) =>
  (
    await getDocumentClient().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `LINK#${linkId}` },
        ConsistentRead: true,
      }),
    )
  )
    .Items!.map((i) => String(i.sk))
    .sort();

describe('linkRepository.saveChange against DynamoDB Local', () => {
  it('writes list entries with the link and replaces stale tag entries on change', async () => {
    const link = await newLink('int-a', ['One', 'Two']);
    expect(await entriesOf(link.id)).toEqual(
      ['ENTRY#DOMAIN', `ENTRY#TAG#${link.tags[0]!.id}`, `ENTRY#TAG#${link.tags[1]!.id}`, 'LINK'].sort(),
    );
    const next = applyLinkPatch(link, { archived: true }, { tags: [link.tags[1]!] });
    await saveWithEntry(link, next);
    expect(await entriesOf(link.id)).toEqual(['ENTRY#DOMAIN', `ENTRY#TAG#${link.tags[1]!.id}`, 'LINK'].sort());
    expect((await getItem(keys.linkListEntry(link.id, 'DOMAIN')))?.gsi1pk).toBe(
      `${tenant.workspaceId}#SHORTLINK#1#DOMAIN#${link.domain}`,
    );
    expect((await getItem(keys.slug(link.domain, 'int-a')))?.archived).toBe(true);
  });

  it('refuses a change based on a stale read (LinkChangedError) and writes nothing', async () => {
    const link = await newLink('int-b');
    await saveWithEntry(link, applyLinkPatch(link, { title: 'first' }, {}));
    await expect(saveWithEntry(link, applyLinkPatch(link, { key: 'int-b2' }, {}))).rejects.toBeInstanceOf(
      LinkChangedError,
    );
    expect(await getItem(keys.slug(link.domain, 'int-b2'))).toBeUndefined();
    expect((await getItem(keys.slug(link.domain, 'int-b')))?.linkId).toBe(link.id);
    expect((await linkRepository.findById(link.id, true))?.title).toBe('first');
  });

  it('a slug move onto a used slug is SlugTakenError and leaves both links and slugs as they were', async () => {
    const a = await newLink('int-c');
    const b = await newLink('int-d');
    await expect(saveWithEntry(a, applyLinkPatch(a, { key: 'int-d', title: 'moved' }, {}))).rejects.toBeInstanceOf(
      SlugTakenError,
    );
    expect((await getItem(keys.slug(a.domain, 'int-c')))?.linkId).toBe(a.id);
    expect((await getItem(keys.slug(a.domain, 'int-d')))?.linkId).toBe(b.id);
    expect(await linkRepository.findById(a.id, true)).toMatchObject({
      key: 'int-c',
      title: a.title,
      updatedAt: a.updatedAt,
    });
  });

  it('never touches the click counters', async () => {
    const link = await newLink('int-e');
    const { countClicks } = await import('@test/support/count-clicks');
    await countClicks(link.id, { humans: 1 });
    await saveWithEntry(link, applyLinkPatch(link, { comments: 'x' }, {}));
    expect(await linkRepository.findById(link.id, true)).toMatchObject({ clicks: 1, comments: 'x' });
  });
});
