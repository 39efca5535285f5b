import { describe, expect, it } from 'vitest';
import { createLinkBodySchema, patchLinkBodySchema } from '@shared/schemas/link-schemas';
import { linkKeySchema, httpUrlSchema } from '@shared/schemas/common-schemas';
import { overridesOf, normalizeObjects } from '@shared/links/link-input';
import { canonicalJson } from '@shared/util/canonical-json';
import { randomBase62, timeOrderedId } from '@shared/util/ids';
import { hashPassword, verifyPassword } from '@shared/util/password';
import { colorForTagName, TAG_COLORS, uniqueTagNames } from '@shared/tags/tag-repository';

describe('URL rules', () => {
  it('accepts absolute http(s) URLs up to 2,048 characters', () => {
    expect(httpUrlSchema.safeParse('https://example.com/a?b=c').success).toBe(true);
    expect(httpUrlSchema.safeParse(`https://e.com/${'a'.repeat(2048 - 14)}`).success).toBe(true);
    expect(httpUrlSchema.safeParse(`https://e.com/${'a'.repeat(2048 - 13)}`).success).toBe(false);
  });
  it('refuses other schemes, relative URLs and embedded whitespace', () => {
    for (const bad of [
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      'ftp://x.com',
      '/relative',
      'https://exa mple.com',
      'https://a.com/\nx',
      'JAVASCRIPT:alert(1)',
    ]) {
      expect(httpUrlSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe('slug rules', () => {
  it('allows the alphabet, dots inside, and refuses reserved words and other characters', () => {
    for (const ok of ['a', 'A-b_c', 'a.b', 'x'.repeat(100)]) expect(linkKeySchema.safeParse(ok).success, ok).toBe(true);
    for (const bad of [
      '',
      '.a',
      'a.',
      'a/b',
      'ä',
      'аpple',
      'a b',
      'x'.repeat(101),
      'api',
      'V1',
      '.well-known',
      'favicon.ico',
      'robots.txt',
    ]) {
      expect(linkKeySchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});

describe('createLinkBodySchema', () => {
  it('needs url or destinationUrl and a domain, and refuses conflicting aliases', () => {
    const missing = createLinkBodySchema.safeParse({});
    expect(missing.success).toBe(false);
    expect(missing.error!.issues.map((i) => i.path.join('.'))).toEqual(expect.arrayContaining(['domain']));
    expect(createLinkBodySchema.safeParse({ destinationUrl: 'https://a.com', domain: 'x.com' }).success).toBe(true);
    expect(
      createLinkBodySchema.safeParse({ url: 'https://a.com', destinationUrl: 'https://b.com', domain: 'x.com' })
        .success,
    ).toBe(false);
    expect(createLinkBodySchema.safeParse({ url: 'https://a.com', domain: 'x.com', key: 'a', slug: 'b' }).success).toBe(
      false,
    );
  });
  it('enforces the URL, key and body limits', () => {
    const base = { url: 'https://a.com', domain: 'x.com' };
    expect(createLinkBodySchema.safeParse({ ...base, title: 't'.repeat(256) }).success).toBe(false);
    expect(createLinkBodySchema.safeParse({ ...base, comments: 'c'.repeat(1001) }).success).toBe(false);
    expect(createLinkBodySchema.safeParse({ ...base, password: 'p'.repeat(129) }).success).toBe(false);
    expect(
      createLinkBodySchema.safeParse({ ...base, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }).success,
    ).toBe(false);
    expect(createLinkBodySchema.safeParse({ ...base, tags: ['x'.repeat(51)] }).success).toBe(false);
    expect(createLinkBodySchema.safeParse({ ...base, objects: { big: 'x'.repeat(16 * 1024) } }).success).toBe(false);
    expect(createLinkBodySchema.safeParse({ ...base, expiresAt: 'tomorrow' }).success).toBe(false);
    expect(
      createLinkBodySchema.safeParse({
        ...base,
        expiresAt: '2030-01-01T00:00:00Z',
        tracking: { utmSource: 'x', extra: 1 },
      }).success,
    ).toBe(true);
  });
});

describe('platform overrides given twice', () => {
  it('accepts the same value in both places and refuses different values (400 naming the platform)', () => {
    const base = { url: 'https://a.com', domain: 'x.com' };
    expect(
      createLinkBodySchema.safeParse({
        ...base,
        iosOverrideUrl: 'https://i.com',
        platformOverrides: { ios: 'https://i.com', iosOverrideUrl: 'https://i.com' },
      }).success,
    ).toBe(true);
    const top = createLinkBodySchema.safeParse({
      ...base,
      iosOverrideUrl: 'https://j.com',
      platformOverrides: { ios: 'https://i.com' },
    });
    expect(top.success).toBe(false);
    expect(top.error!.issues.map((i) => i.path.join('.'))).toEqual(['platformOverrides.ios']);
    const nested = createLinkBodySchema.safeParse({
      ...base,
      platformOverrides: { android: 'https://a1.com', androidOverrideUrl: null },
    });
    expect(nested.error!.issues.map((i) => i.path.join('.'))).toEqual(['platformOverrides.android']);
    expect(
      patchLinkBodySchema.safeParse({ desktopOverrideUrl: null, platformOverrides: { desktop: 'https://d.com' } })
        .success,
    ).toBe(false);
  });
});

describe('link input normalisation', () => {
  it('merges platformOverrides in both key styles, top-level fields winning', () => {
    expect(
      overridesOf({
        platformOverrides: { ios: 'https://i.com', androidOverrideUrl: 'https://a.com' },
        desktopOverrideUrl: 'https://d.com',
      }),
    ).toEqual({
      desktopOverrideUrl: 'https://d.com',
      androidOverrideUrl: 'https://a.com',
      iosOverrideUrl: 'https://i.com',
    });
    expect(
      overridesOf({ iosOverrideUrl: null, platformOverrides: { ios: 'https://i.com' } }).iosOverrideUrl,
    ).toBeNull();
  });
  it('stores an empty objects as null', () => {
    expect(normalizeObjects({})).toBeNull();
    expect(normalizeObjects({ a: 1 })).toEqual({ a: 1 });
    expect(normalizeObjects(undefined)).toBeUndefined();
  });
});

describe('utilities', () => {
  it('canonical JSON ignores key order at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 2 } })).toBe(
      canonicalJson({ a: { c: 2, d: [1, { y: 2, z: 1 }] }, b: 1 }),
    );
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }));
  });
  it('generates base62 slugs of the asked length and time-ordered ids', () => {
    const slugs = new Set(Array.from({ length: 2000 }, () => randomBase62(7)));
    expect(slugs.size).toBe(2000);
    for (const s of slugs) expect(s).toMatch(/^[0-9A-Za-z]{7}$/);
    expect(timeOrderedId(1000) < timeOrderedId(2000)).toBe(true);
  });
  it('hashes passwords slowly and verifies them', async () => {
    const hash = await hashPassword('hunter2');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(hash).not.toContain('hunter2');
    expect(await verifyPassword('hunter2', hash)).toBe(true);
    expect(await verifyPassword('hunter3', hash)).toBe(false);
  });
  it('picks tag colours from the allowed set, deterministically and ignoring case', () => {
    expect(TAG_COLORS).toContain(colorForTagName('Marketing'));
    expect(colorForTagName('Marketing')).toBe(colorForTagName('marketing'));
    expect(uniqueTagNames(['A', 'b', 'a', 'B', 'c'])).toEqual(['A', 'b', 'c']);
  });
});
