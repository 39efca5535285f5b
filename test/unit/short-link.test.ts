import { afterEach, describe, expect, it } from 'vitest';
import { localShortLinkEnv, resetConfig } from '@shared/config/config';
import { isHttpUrl, shortLinkOf, slugOfShortLink } from '@shared/links/short-link';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  resetConfig();
});

describe('shortLinkOf', () => {
  it('is https://{domain}/{key} when nothing configures it (deployed)', () => {
    delete process.env.SHORT_LINK_SCHEME;
    delete process.env.SHORT_LINK_PORT;
    resetConfig();
    expect(shortLinkOf('go.example.com', 'spring')).toBe('https://go.example.com/spring');
  });
  it("is plain HTTP on the edge's port on the local stack, and names the same link back", () => {
    Object.assign(process.env, localShortLinkEnv(3001));
    resetConfig();
    const local = shortLinkOf('links-ab12.localhost', 'spring');
    expect(local).toBe('http://links-ab12.localhost:3001/spring');
    expect(slugOfShortLink(local)).toEqual({ domain: 'links-ab12.localhost', key: 'spring' });
  });
});

describe('slugOfShortLink', () => {
  it('reads domain (lower-cased) and one percent-decoded key, ignoring query and fragment', () => {
    expect(slugOfShortLink('https://Go.Example.com/AbC?x=1#f')).toEqual({ domain: 'go.example.com', key: 'AbC' });
    expect(slugOfShortLink('http://go.example.com/a%2Db')).toEqual({ domain: 'go.example.com', key: 'a-b' });
    expect(slugOfShortLink('http://go.example.com:3001/AbC')).toEqual({ domain: 'go.example.com', key: 'AbC' });
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
