import { describe, expect, it } from 'vitest';
import { routeTable } from '@shared/routes/route-table';
import { functionEnvironmentOf, synthStack, synthWith } from '@test/support/synth-stack';

const retentionsOf = (synth: Parameters<typeof functionEnvironmentOf>[0]) =>
  functionEnvironmentOf(synth, 'AUDIT_RETENTION_DAYS');

/** The functions that write or read audit entries: their routes' grants name AUDIT#. */
const audited = new Set(
  routeTable
    .filter((r) => [...(r.grants.writes ?? []), ...(r.grants.reads ?? [])].includes('AUDIT#'))
    .map((r) => r.handler),
);

describe('the audit log retention setting (context auditRetentionDays)', () => {
  it('by default every function that writes or reads entries gets AUDIT_RETENTION_DAYS=400, and no other', () => {
    const retentions = retentionsOf(synthStack());
    expect(audited).toContain('links-create');
    expect(audited).toContain('audit-log-list');
    for (const [handler, days] of retentions) expect(days, handler).toBe(audited.has(handler) ? '400' : undefined);
    expect(retentions.get('edge-links')).toBeUndefined();
  });

  it('-c auditRetentionDays=730 sets 730 on every function that writes or reads entries', () => {
    const retentions = retentionsOf(synthWith({ auditRetentionDays: '730' }, 'AuditRetentionStack'));
    for (const handler of audited) expect(retentions.get(handler), handler).toBe('730');
  });

  it('refuses at synth a value that is not a whole number from 1 to 3650, naming the setting', () => {
    for (const value of ['0', '2.5', 'forever', 3651]) {
      expect(() => synthWith({ auditRetentionDays: value }, 'AuditRetentionStack'), String(value)).toThrow(
        `Context auditRetentionDays must be a whole number of days from 1 to 3650, got ${JSON.stringify(value)}`,
      );
    }
  });
});
