import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseAuditRetentionDays } from '@shared/config/audit-retention';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
  vi.resetModules();
});

/** Fresh modules (a cold start) under the given AUDIT_RETENTION_DAYS. */
const coldStart = async (days: string | undefined) => {
  if (days === undefined) delete process.env.AUDIT_RETENTION_DAYS;
  else process.env.AUDIT_RETENTION_DAYS = days;
  vi.resetModules();
  (await import('@shared/config/audit-retention')).resetAuditRetention();
};

describe('the audit log retention of a function (AUDIT_RETENTION_DAYS)', () => {
  it('accepts whole numbers of days from 1 to 3650; unset is 400', () => {
    expect(parseAuditRetentionDays(undefined)).toEqual({ days: 400 });
    expect(parseAuditRetentionDays(null)).toEqual({ days: 400 });
    expect(parseAuditRetentionDays('1')).toEqual({ days: 1 });
    expect(parseAuditRetentionDays(' 730 ')).toEqual({ days: 730 });
    expect(parseAuditRetentionDays(3650)).toEqual({ days: 3650 });
    for (const bad of ['0', '-5', '2.5', '400d', '', '3651', 10_000, true])
      expect(parseAuditRetentionDays(bad), String(bad)).toHaveProperty('problem');
  });

  it('is read once, when a handler that writes entries is built: later changes to the environment do not apply', async () => {
    await coldStart('90');
    await import('@lambdas/links-patch');
    const { auditRetentionDays } = await import('@shared/config/audit-retention');
    expect(auditRetentionDays()).toBe(90);
    process.env.AUDIT_RETENTION_DAYS = '91';
    expect(auditRetentionDays()).toBe(90);
  });

  it('fails the cold start of every handler that writes or reads entries when it is not a whole number from 1 to 3650', async () => {
    for (const handler of [
      'links-create',
      'links-bulk-create',
      'deep-links-archive',
      'legacy-link-create',
      'audit-log-list',
    ]) {
      await coldStart('0');
      await expect(import(`../../lambdas/${handler}.ts`), handler).rejects.toThrow(
        'Invalid configuration: AUDIT_RETENTION_DAYS: must be a whole number of days from 1 to 3650, got "0"',
      );
    }
  });

  it('is not read by a handler that touches no audit entry (the redirect included)', async () => {
    await coldStart('forever');
    await expect(import('@lambdas/links-list')).resolves.toHaveProperty('handler');
    await expect(import('@lambdas/edge-links')).resolves.toHaveProperty('handler');
  });
});
