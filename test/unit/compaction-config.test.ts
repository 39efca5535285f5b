import { describe, expect, it } from 'vitest';
import { parseLakeCompactionConfig } from '@shared/analytics/lake/compaction-config';

describe("the compaction function's configuration", () => {
  it('reads the lake bucket, workgroup and database the stack sets', () => {
    expect(
      parseLakeCompactionConfig({
        LAKE_BUCKET: 'lake',
        ATHENA_WORKGROUP: 'wg',
        ATHENA_DATABASE: 'db',
        AWS_REGION: 'eu-west-1',
      }),
    ).toEqual({
      region: 'eu-west-1',
      lakeBucket: 'lake',
      workgroup: 'wg',
      database: 'db',
    });
  });

  it('fails at init naming every missing variable', () => {
    expect(() => parseLakeCompactionConfig({ ATHENA_WORKGROUP: 'wg', ATHENA_DATABASE: '' })).toThrow(
      'Invalid configuration: LAKE_BUCKET: is required; ATHENA_DATABASE: is required',
    );
  });
});
