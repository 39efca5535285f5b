import { describe, expect, it } from 'vitest';
import { AppError } from '@shared/errors/app-error';
import { newLinkRecord } from '@shared/links/create-link';
import { assertLinkFits, LINK_EVENT_MAX_BYTES, linkEventBytes } from '@shared/links/link-size';
import { limits } from '@shared/schemas/common-schemas';
import { CONDITIONS_MAX, QUERY_PARAM_MAX, RULES_MAX, VARIANTS_MAX } from '@shared/links/link-rules';
import { GEO_MAX_ENTRIES } from '@shared/schemas/link-field-schemas';
import type { DomainRecord } from '@shared/tenancy/tenancy-types';

const url = (n: number) => `https://example.com/${'a'.repeat(n - 'https://example.com/'.length)}`;
const domain = { id: 'dom_1', domain: 'go.example.com' } as DomainRecord;
const record = (body: Parameters<typeof newLinkRecord>[1]) =>
  newLinkRecord(
    { workspaceId: 'ws_1', linkType: 'SHORTLINK', domain, deepLinkAppId: null, url: url(limits.urlMax) },
    body,
    { tags: [], passwordHash: null },
    'k'.repeat(limits.keyMax),
    '2026-11-26T10:00:00.000Z',
  );

describe('a link is refused at its write when its event could not be sent', () => {
  it('the largest link the field limits allow fits one PutEvents entry and one SQS message', () => {
    const countries = ['US', 'GB', 'FR', 'DE', 'ES', 'IT', 'NL', 'BE', 'CH', 'AT'];
    const geo = Object.fromEntries(
      Array.from({ length: GEO_MAX_ENTRIES }, (_, i) => [`${countries[i % 10]!}${String(i)}`, url(limits.urlMax)]),
    );
    const link = record({
      url: url(limits.urlMax),
      title: 'é'.repeat(limits.titleMax),
      comments: 'é'.repeat(limits.commentsMax),
      objects: { blob: 'x'.repeat(limits.objectsMaxBytes - 20) },
      desktopOverrideUrl: url(limits.urlMax),
      androidOverrideUrl: url(limits.urlMax),
      iosOverrideUrl: url(limits.urlMax),
      expiredUrl: url(limits.urlMax),
      geo,
      // 20 rules of 10 conditions at their longest, and 4 variants.
      rules: Array.from({ length: RULES_MAX }, (_, i) => ({
        id: `r${String(i)}`.padEnd(32, 'r'),
        conditions: Array.from({ length: CONDITIONS_MAX }, (_, j) => ({
          type: 'query' as const,
          param: `${String(i)}-${String(j)}`.padEnd(QUERY_PARAM_MAX, 'p'),
          value: 'v'.repeat(200),
        })),
        url: url(limits.urlMax),
      })),
      variants: Array.from({ length: VARIANTS_MAX }, (_, i) => ({
        id: `v${String(i)}`.padEnd(32, 'v'),
        url: `${url(limits.urlMax - 2)}${String(i).padStart(2, '0')}`,
        weight: 25,
      })),
    });
    expect(linkEventBytes(link)).toBeLessThan(LINK_EVENT_MAX_BYTES);
    expect(() => {
      assertLinkFits(link);
    }).not.toThrow();
  });

  it('a link whose event would pass the limit is a 400 invalid_request naming the limit', () => {
    const link = { ...record({}), objects: { blob: 'x'.repeat(300 * 1024) } };
    let error: unknown;
    try {
      assertLinkFits(link);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect((error as Error).message).toMatch(/EventBridge PutEvents and SQS take at most 262143/);
  });
});
