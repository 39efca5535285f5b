import { describe, expect, it } from 'vitest';
import { isHttpUrl, slugOfShortLink } from '@shared/links/short-link';

describe('slugOfShortLink', () => {
  it('reads domain (lower-cased) and one percent-decoded key, ignoring query and fragment', () => {
    expect(slugOfShortLink('https://Go.Example.com/AbC?x=1#f')).toEqual({ domain: 'go.example.com', key: 'AbC' });
    expect(slugOfShortLink('http://go.example.com/a%2Db')).toEqual({ domain: 'go.example.com', key: 'a-b' });
  });
  it('names no link for other schemes, no key, nested paths or broken escapes', () => {
    for (const bad of [
      'ftp://a.com/x',
      'https://a.com/',
      'https://a.com',
      'https://a.com/x/y',
      'https://a.com/%E0%A4%A',
      'not a url',
      'javascript:alert(1)',
    ]) {
      expect(slugOfShortLink(bad), bad).toBeUndefined();
    }
    expect(isHttpUrl('https://a.com/x/y')).toBe(true);
    expect(isHttpUrl('mailto:x@y.z')).toBe(false);
  });
});
