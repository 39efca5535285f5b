import { describe, expect, it } from 'vitest';
import { required } from '@shared/util/required';

describe('required', () => {
  it('returns the value, falsy ones included', () => {
    expect(required('x', 'a value')).toBe('x');
    expect(required(0, 'a count')).toBe(0);
    expect(required('', 'a name')).toBe('');
    expect(required(false, 'a flag')).toBe(false);
  });

  it('throws an error naming what is missing for undefined and null', () => {
    expect(() => {
      required(undefined, 'the shard id');
    }).toThrow('Internal invariant broken: the shard id is missing');
    expect(() => {
      required(null, 'the app id');
    }).toThrow('Internal invariant broken: the app id is missing');
  });
});
