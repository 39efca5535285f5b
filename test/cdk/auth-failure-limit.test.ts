import { describe, expect, it } from 'vitest';
import { routeTable } from '@shared/routes/route-table';
import { functionEnvironmentOf, synthStack, synthWith } from '@test/support/synth-stack';

const limitsOf = (synth: Parameters<typeof functionEnvironmentOf>[0]) =>
  functionEnvironmentOf(synth, 'AUTH_FAILURE_LIMIT');

const keyed = new Set(routeTable.filter((r) => r.credential !== 'none' || r.authenticatesKey).map((r) => r.handler));

describe('the failed-key limit setting (context authFailureLimit)', () => {
  it('by default every keyed function gets AUTH_FAILURE_LIMIT=100, and no public function gets it', () => {
    const limits = limitsOf(synthStack());
    expect(keyed.size).toBeGreaterThan(10);
    for (const [handler, limit] of limits) expect(limit, handler).toBe(keyed.has(handler) ? '100' : undefined);
    expect(limits.get('edge-links')).toBeUndefined();
  });

  it('-c authFailureLimit=25 sets 25 on every keyed function', () => {
    const limits = limitsOf(synthWith({ authFailureLimit: '25' }, 'AuthLimitStack'));
    for (const handler of keyed) expect(limits.get(handler), handler).toBe('25');
  });

  it('refuses at synth a value that is not a whole number from 1 to 100000, naming the setting', () => {
    for (const value of ['0', '-1', '2.5', 'lots', 100_001]) {
      expect(() => synthWith({ authFailureLimit: value }, 'AuthLimitStack'), String(value)).toThrow(
        `Context authFailureLimit must be a whole number from 1 to 100000 (failed API keys per address per 5 minutes), got ${JSON.stringify(value)}`,
      );
    }
  });
});
