import { describe, expect, it } from 'vitest';
import { httpUrlSchema } from '@shared/schemas/common-schemas';
import { createLinkBodySchema } from '@shared/schemas/link-schemas';
import { findJsonSafetyProblem, RESERVED_OBJECT_KEYS } from '@shared/util/json-safety';

describe('findJsonSafetyProblem', () => {
  it('refuses every Object.prototype name as a key, at any depth, naming the path', () => {
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      expect(RESERVED_OBJECT_KEYS.has(key), key).toBe(true);
      const parsed = JSON.parse(`{"objects":{"a":[{"${key}":1}]}}`);
      expect(findJsonSafetyProblem(parsed), key).toEqual({
        path: `objects.a[0].${key}`,
        message: expect.stringContaining(key),
      });
    }
  });
  it('refuses lone surrogates in values and keys, and accepts astral characters', () => {
    expect(findJsonSafetyProblem(JSON.parse('{"title":"a\\ud800"}'))?.path).toBe('title');
    expect(findJsonSafetyProblem(JSON.parse('{"t":["x","\\udfff"]}'))?.path).toBe('t[1]');
    expect(findJsonSafetyProblem(JSON.parse('{"o":{"\\ud800k":"v"}}'))?.path).toBe('o.\\ud800k');
    expect(
      findJsonSafetyProblem({ title: '😀 𝒳 ünï', objects: { '𝒳': '😀', ' ': '', Constructor: 1 } }),
    ).toBeUndefined();
    expect(findJsonSafetyProblem({ objects: { a: { '': 1 } } })?.path).toBe('objects.a.');
  });
  it('refuses numbers DynamoDB or its marshaller cannot hold exactly', () => {
    for (const n of [1e300, -1e300, 2 ** 53, -(2 ** 53), 1e-200])
      expect(findJsonSafetyProblem({ o: { n } })?.path, String(n)).toBe('o.n');
    expect(findJsonSafetyProblem(JSON.parse('{"n":1e400}'))?.message).toBe('must be a finite number');
    for (const n of [0, -0, 1.5, -(2 ** 53 - 1), 2 ** 53 - 1, 1e-7, 0.1])
      expect(findJsonSafetyProblem({ n }), String(n)).toBeUndefined();
  });
  it('walks deep input without recursion', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findJsonSafetyProblem(deep)).toBeUndefined();
  });
});

describe('destination URLs with credentials', () => {
  it('are refused, naming the field', () => {
    for (const bad of [
      'https://accounts.example.com@evil.example/',
      'https://u:p@example.com/',
      'https://:p@example.com',
      'https://@example.com/',
      'http://a%40b@example.com/',
    ]) {
      expect(httpUrlSchema.safeParse(bad).success, bad).toBe(false);
    }
    const res = createLinkBodySchema.safeParse({ url: 'https://accounts.example.com@evil.example/', domain: 'x.com' });
    expect(res.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['url', expect.stringContaining('credentials')],
    ]);
  });
  it('an @ after the host (path, query, fragment) and IDN hosts stay valid', () => {
    for (const ok of [
      'https://example.com/@user',
      'https://example.com/?to=a@b.com',
      'https://example.com/#@x',
      'https://münchen.example/weg',
      'https://xn--mnchen-3ya.example/',
    ]) {
      expect(httpUrlSchema.safeParse(ok).success, ok).toBe(true);
    }
  });
});
