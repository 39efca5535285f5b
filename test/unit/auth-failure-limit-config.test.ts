import { afterEach, describe, expect, it, vi } from 'vitest';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  vi.resetModules();
});

/** Fresh modules (a cold start) under the given AUTH_FAILURE_LIMIT. */
const coldStart = async (limit: string | undefined) => {
  if (limit === undefined) delete process.env.AUTH_FAILURE_LIMIT;
  else process.env.AUTH_FAILURE_LIMIT = limit;
  vi.resetModules();
  (await import('@shared/config/auth-failure-limit')).resetAuthFailureLimit();
};

describe('the failed-key limit of a function (AUTH_FAILURE_LIMIT)', () => {
  it('is read once, when a keyed handler is built: later changes to the environment do not apply', async () => {
    await coldStart('7');
    await import('@lambdas/links-list');
    const { authFailureLimit } = await import('@shared/config/auth-failure-limit');
    expect(authFailureLimit()).toBe(7);
    process.env.AUTH_FAILURE_LIMIT = '9';
    expect(authFailureLimit()).toBe(7);
  });

  it('is 100 when unset', async () => {
    await coldStart(undefined);
    const { authFailureLimit } = await import('@shared/config/auth-failure-limit');
    expect(authFailureLimit()).toBe(100);
  });

  it('fails the cold start of every kind of keyed handler when it is not a whole number from 1 to 100000', async () => {
    for (const handler of ['links-list', 'client-resolve', 'analytics-deep-link-app', 'legacy-link-get']) {
      await coldStart('0');
      await expect(import(`../../lambdas/${handler}.ts`), handler).rejects.toThrow(
        'Invalid configuration: AUTH_FAILURE_LIMIT: must be a whole number from 1 to 100000 (failed API keys per address per 5 minutes), got "0"',
      );
    }
  });

  it('is not read by a handler without a key (its cold start does not depend on it)', async () => {
    await coldStart('lots');
    await expect(import('@lambdas/openapi-get')).resolves.toHaveProperty('handler');
  });
});
