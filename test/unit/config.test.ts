import { describe, expect, it } from 'vitest';
import { parseConfig } from '@shared/config/config';

describe('parseConfig', () => {
  it('reads a minimal environment with defaults', () => {
    expect(parseConfig({ TABLE_NAME: 't' })).toEqual({
      TABLE_NAME: 't',
      AWS_REGION: 'us-east-1',
      DYNAMODB_ENDPOINT: undefined,
      EVENTS_STREAM_NAME: undefined,
      LOCAL_LAKE_DIR: undefined,
      ATHENA_WORKGROUP: undefined,
      ATHENA_DATABASE: undefined,
      LOG_LEVEL: 'info',
    });
  });

  it('keeps every variable that is set', () => {
    const env = {
      TABLE_NAME: 't',
      AWS_REGION: 'eu-west-1',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      EVENTS_STREAM_NAME: 's',
      LOCAL_LAKE_DIR: '/tmp/lake',
      ATHENA_WORKGROUP: 'w',
      ATHENA_DATABASE: 'd',
      LOG_LEVEL: 'warn',
    };
    expect(parseConfig(env)).toEqual(env);
  });

  it('names every bad variable at once', () => {
    expect(() =>
      parseConfig({ TABLE_NAME: '', DYNAMODB_ENDPOINT: 'not a url', LOG_LEVEL: 'loud', EVENTS_STREAM_NAME: '' }),
    ).toThrow(
      'Invalid configuration: TABLE_NAME: must not be empty; DYNAMODB_ENDPOINT: must be a URL; LOG_LEVEL: must be one of debug, info, warn, error, silent; EVENTS_STREAM_NAME: must not be empty',
    );
  });

  it('requires TABLE_NAME', () => {
    expect(() => parseConfig({})).toThrow('TABLE_NAME: is required');
  });
});
