import { describe, expect, it } from 'vitest';
import {
  countWithinBudget,
  escapedJsonBytes,
  LAMBDA_RESPONSE_LIMIT_BYTES,
  PAGE_BUDGET_BYTES,
} from '@shared/pagination/response-budget';
import { toPage } from '@shared/pagination/page';

describe('response budget', () => {
  it('bounds the bytes of a value escaped twice, non-ASCII counted as \\u escapes', () => {
    expect(escapedJsonBytes({ a: 'x' })).toBe(JSON.stringify(JSON.stringify({ a: 'x' })).length);
    expect(escapedJsonBytes('"')).toBe(JSON.stringify(JSON.stringify('"')).length);
    expect(escapedJsonBytes('中')).toBe(2 + 2 * 2 + 6);
    const value = { text: '中"\\\n'.repeat(1000) };
    const body = JSON.stringify(value);
    const inResult =
      Buffer.byteLength(JSON.stringify({ statusCode: 200, body })) -
      Buffer.byteLength(JSON.stringify({ statusCode: 200, body: '' }));
    expect(escapedJsonBytes(value)).toBeGreaterThanOrEqual(inResult);
  });

  it('counts the items that fit, always at least one', () => {
    expect(countWithinBudget([5, 5, 5], (n) => n, 10)).toBe(2);
    expect(countWithinBudget([50, 5], (n) => n, 10)).toBe(1);
    expect(countWithinBudget([], (n: number) => n, 10)).toBe(0);
    expect(PAGE_BUDGET_BYTES).toBeLessThan(LAMBDA_RESPONSE_LIMIT_BYTES);
  });

  it('a page of large items ends early with hasMore and a cursor at its last item', async () => {
    const big = 'x'.repeat(1024 * 1024);
    const items = Array.from({ length: 10 }, (_, i) => ({ id: i, big }));
    const page = await toPage(items, 10, (item) => item.id, { test: 'budget' });
    expect(page.items.length).toBe(3);
    expect(page.pagination.hasMore).toBe(true);
    expect(page.pagination.nextCursor).not.toBeNull();
    const small = await toPage(items.slice(0, 2), 10, (item) => item.id, { test: 'budget' });
    expect(small.items.length).toBe(2);
    expect(small.pagination).toMatchObject({ hasMore: false, nextCursor: null });
  });
});
