/**
 * The console's Import model: a `slug_taken` answer of the bulk route is told apart, as the CLI's
 * importer tells it, by the key's existing link (imported before when it is this workspace's link
 * to the row's destination, another link's key otherwise), and the failures CSV says which.
 */
import { describe, expect, it } from 'vitest';
import type { Link } from '@linkservice/sdk';
import { classifyTaken, failureRows, reasonOf, type RowResult } from '../../console/src/import-model';
import { deepLinkCreateBody, emptyForm } from '../../console/src/link-form-model';

const taken = (row: number, key: string): RowResult => ({
  row,
  ok: false,
  key,
  code: 'slug_taken',
  message: 'This domain and key are already used by another link',
});
const linkTo = (url: string) => ({ url }) as Link;

describe('classifyTaken', () => {
  const results: RowResult[] = [
    { row: 1, ok: true, key: 'made', shortLink: 'https://s.example/made' },
    taken(2, 'same'),
    taken(3, 'other'),
    taken(4, 'unseen'),
    { row: 5, ok: false, key: 'bad', code: 'invalid_request', message: 'The body is invalid' },
    taken(6, 'normalised'),
  ];
  const urls = new Map<number, string | undefined>([
    [1, 'https://example.com/made'],
    [2, 'https://example.com/same'],
    [3, 'https://example.com/mine'],
    [4, 'https://example.com/unseen'],
    [5, 'javascript:alert(1)'],
    [6, 'https://EXAMPLE.com'],
  ]);
  const existing: Record<string, Link> = {
    same: linkTo('https://example.com/same'),
    other: linkTo('https://example.com/theirs'),
    normalised: linkTo('https://example.com/'),
  };

  it("looks up only the taken keys and says imported before (same destination) or another link's key", async () => {
    const looked: string[] = [];
    const out = await classifyTaken(results, urls, (key) => {
      looked.push(key);
      return Promise.resolve(existing[key]);
    });
    expect(looked.sort()).toEqual(['normalised', 'other', 'same', 'unseen']);
    expect(out.map((r) => (r.ok ? 'created' : reasonOf(r)))).toEqual([
      'created',
      'already_imported',
      'slug_taken',
      'slug_taken',
      'failed',
      'already_imported',
    ]);
    // The API's answer stays as it was, beside the reason.
    expect(out[2]).toMatchObject({
      code: 'slug_taken',
      message: 'This domain and key are already used by another link',
      skip: 'slug_taken',
    });
  });

  it('puts the reason beside the error in the failures CSV, the row and its cells around them', async () => {
    const out = await classifyTaken(results, urls, (key) => Promise.resolve(existing[key]));
    const records = [2, 3, 5].map((row) => ({ row, record: { url: urls.get(row) ?? '', key: `k${String(row)}` } }));
    const rows = failureRows(['url', 'key'], records, out);
    expect(rows[0]).toEqual(['row', 'reason', 'error_code', 'error_message', 'error_details', 'url', 'key']);
    expect(rows.slice(1).map((r) => r.slice(0, 3))).toEqual([
      ['2', 'already_imported', 'slug_taken'],
      ['3', 'slug_taken', 'slug_taken'],
      ['4', 'slug_taken', 'slug_taken'],
      ['5', 'failed', 'invalid_request'],
      ['6', 'already_imported', 'slug_taken'],
    ]);
    expect(rows[2]?.slice(5)).toEqual(['https://example.com/mine', 'k3']);
  });
});

describe('deepLinkCreateBody', () => {
  it("names the app instead of a domain, and leaves the destination to the app's default when empty", () => {
    const values = { ...emptyForm('links.example'), appId: ' app_1 ', key: 'spring', tags: 'a, b' };
    expect(deepLinkCreateBody(values)).toEqual({ deepLinkAppId: 'app_1', key: 'spring', tags: ['a', 'b'] });
    expect(deepLinkCreateBody({ ...values, url: ' https://example.com/x ' })).toMatchObject({
      url: 'https://example.com/x',
    });
  });
});
