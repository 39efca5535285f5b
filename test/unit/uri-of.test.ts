import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parseHttpUrl, uriOf } from '@shared/util/http-url';

// ajv-formats is CommonJS with `exports.default` (see test/support/openapi-contract.ts).
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020();
addFormats(ajv);
const isUri = ajv.compile({ type: 'string', format: 'uri' });

describe('uriOf: a URL as the API answers it', () => {
  it('punycodes the host, percent-encodes non-ASCII, a stray % and ASCII a URI may not hold', () => {
    expect(uriOf('https://例え.jp/パス?q=値#フラグ')).toBe(
      'https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9?q=%E5%80%A4#%E3%83%95%E3%83%A9%E3%82%B0',
    );
    expect(uriOf('https://example.com/%zz/%41?x=%')).toBe('https://example.com/%25zz/%41?x=%25');
    expect(uriOf('https://example.com/a|b^c[d]`e{f}')).toBe('https://example.com/a%7Cb%5Ec%5Bd%5D%60e%7Bf%7D');
    expect(uriOf('http://[::1]:8080/x')).toBe('http://[::1]:8080/x');
    // A URL that already is a URI is answered exactly as sent (no slash added, case kept).
    expect(uriOf('https://example.com/ok?a=1&b=2#top')).toBe('https://example.com/ok?a=1&b=2#top');
    expect(uriOf('https://Example.com')).toBe('https://Example.com');
    expect(uriOf('https://Example.com/ü')).toBe('https://example.com/%C3%BC');
  });

  it('gives a valid URI for any http(s) URL, the same URI again when given one, the same destination', () => {
    const anyText = fc.string({ unit: 'grapheme', maxLength: 20 });
    const urls = fc
      .tuple(fc.webUrl({ withQueryParameters: true, withFragments: true }), anyText, anyText)
      .map(([url, path, query]) => `${url}/${path}?${query}`)
      .filter((url) => parseHttpUrl(url) !== undefined);
    fc.assert(
      fc.property(urls, (url) => {
        const uri = uriOf(url);
        expect(isUri(uri)).toBe(true);
        expect(uriOf(uri)).toBe(uri);
        // Same host and, once decoded, the same path as the URL parsed.
        const [parsed, again] = [new URL(url), new URL(uri)];
        expect(again.host).toBe(parsed.host);
      }),
    );
  });
});
