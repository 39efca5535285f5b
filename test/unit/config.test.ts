import { describe, expect, it } from 'vitest';
import { localShortLinkEnv, parseConfig } from '@shared/config/config';

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
      SHORT_LINK_SCHEME: 'https',
      SHORT_LINK_PORT: undefined,
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
    expect(parseConfig(env)).toEqual({ ...env, SHORT_LINK_SCHEME: 'https' });
  });

  it('reads how the local stack writes short links: plain HTTP on its edge port', () => {
    expect(parseConfig({ TABLE_NAME: 't', ...localShortLinkEnv(3001) })).toMatchObject({
      SHORT_LINK_SCHEME: 'http',
      SHORT_LINK_PORT: 3001,
    });
  });

  it('refuses a short-link scheme or port that is not one', () => {
    for (const [env, problem] of [
      [{ SHORT_LINK_SCHEME: 'ftp' }, 'SHORT_LINK_SCHEME: must be one of https, http'],
      [{ SHORT_LINK_SCHEME: '' }, 'SHORT_LINK_SCHEME: must be one of https, http'],
      [{ SHORT_LINK_PORT: '0' }, 'SHORT_LINK_PORT: must be a port number from 1 to 65535'],
      [{ SHORT_LINK_PORT: '65536' }, 'SHORT_LINK_PORT: must be a port number from 1 to 65535'],
      [{ SHORT_LINK_PORT: '30a1' }, 'SHORT_LINK_PORT: must be a port number from 1 to 65535'],
      [{ SHORT_LINK_PORT: '-1' }, 'SHORT_LINK_PORT: must be a port number from 1 to 65535'],
      [{ SHORT_LINK_PORT: '' }, 'SHORT_LINK_PORT: must not be empty'],
    ] as const) {
      expect(() => parseConfig({ TABLE_NAME: 't', ...env }), JSON.stringify(env)).toThrow(
        `Invalid configuration: ${problem}`,
      );
    }
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
