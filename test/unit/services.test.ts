import { afterEach, describe, expect, it } from 'vitest';
import { getAnalyticsEngine } from '@shared/analytics/query/analytics-backend';
import type { AnalyticsEngine } from '@shared/analytics/query/analytics-engine';
import { keyNow } from '@shared/auth/api-keys';
import { resetConfig } from '@shared/config/config';
import { getEventSink } from '@shared/events/event-sink';
import type { EventSink } from '@shared/events/event-sink-interface';
import { localServices } from '@shared/local/local-services';
import { getDeliveryQueue } from '@shared/outbound/delivery-queue';
import { getEventBus } from '@shared/outbound/event-bus';
import { deployedRetryDelaysMs, retryDelayAfter } from '@shared/outbound/retry-schedule';
import { checkWebhookUrl } from '@shared/outbound/webhook-url';
import { clockNow, lazy, provideServices, resetServices } from '@shared/runtime/services';

/** The composition root: what a Lambda gets when nothing is provided, and what provide/reset change. */
afterEach(() => {
  resetServices();
  // The test environment's own services again (test/support/test-env.ts).
  provideServices(localServices());
});

const sink = (): EventSink => ({ send: () => Promise.resolve() });

describe('services (shared/runtime/services.ts)', () => {
  it('gives the production ones when nothing is provided', () => {
    resetServices();
    expect(retryDelayAfter(1)).toBe(deployedRetryDelaysMs[0]);
    expect(() => checkWebhookUrl('http://127.0.0.1:9/hook')).toThrow(/https/);
    // The deployed builders read their configuration, which a test process lacks.
    expect(() => getEventSink()).toThrow(/EVENTS_STREAM_NAME/);
    expect(() => getEventBus()).toThrow(/OUTBOUND_BUS_NAME/);
    expect(() => getDeliveryQueue()).toThrow(/WEBHOOK_QUEUE_URL/);
    expect(() => getAnalyticsEngine()).toThrow(/not configured/);
    const before = Date.now();
    expect(keyNow()).toBeGreaterThanOrEqual(before);
    expect(clockNow('rateLimit')).toBeGreaterThanOrEqual(before);
  });

  it('replaces only the services named, and puts each back with resetServices', () => {
    const mine = sink();
    provideServices({ eventSink: mine, retryDelaysMs: [1, 2], loopbackWebhooks: true });
    expect(getEventSink()).toBe(mine);
    expect(retryDelayAfter(2)).toBe(2);
    expect(retryDelayAfter(3)).toBeUndefined();
    expect(() => checkWebhookUrl('http://127.0.0.1:9/hook')).not.toThrow();
    resetServices('retryDelaysMs', 'loopbackWebhooks');
    expect(getEventSink()).toBe(mine);
    expect(retryDelayAfter(2)).toBe(deployedRetryDelaysMs[1]);
    expect(() => checkWebhookUrl('http://127.0.0.1:9/hook')).toThrow(/https/);
    // Provided as undefined: the production one again.
    provideServices({ eventSink: undefined });
    expect(() => getEventSink()).toThrow(/EVENTS_STREAM_NAME/);
  });

  it('pins each clock on its own', () => {
    provideServices({ clocks: { keys: () => 1_000 } });
    expect(keyNow()).toBe(1_000);
    expect(clockNow('rateLimit')).not.toBe(1_000);
    provideServices({ clocks: { rateLimit: () => 2_000 } });
    expect(keyNow()).toBe(1_000);
    expect(clockNow('rateLimit')).toBe(2_000);
    provideServices({ clocks: { keys: undefined } });
    expect(keyNow()).not.toBe(1_000);
    expect(clockNow('rateLimit')).toBe(2_000);
    provideServices({ clocks: { keys: () => 1_000 } });
    resetServices('clocks');
    expect(keyNow()).not.toBe(1_000);
    expect(clockNow('rateLimit')).not.toBe(2_000);
  });

  it('builds a lazy service on first use, once, and again once provided anew', () => {
    let builds = 0;
    const build = () => {
      builds++;
      return sink();
    };
    provideServices({ eventSink: lazy(build) });
    expect(builds).toBe(0);
    const first = getEventSink();
    expect(getEventSink()).toBe(first);
    resetConfig();
    expect(getEventSink()).toBe(first);
    expect(builds).toBe(1);
    provideServices({ eventSink: lazy(build) });
    expect(getEventSink()).not.toBe(first);
    expect(builds).toBe(2);
  });

  it('builds the analytics engine again when the configuration is read again', () => {
    const engines: AnalyticsEngine[] = [];
    provideServices({
      analyticsEngine: lazy(() => {
        const engine: AnalyticsEngine = {
          name: 'duckdb',
          cacheTtlSeconds: 0,
          query: () => Promise.resolve([]),
          watermark: () => Promise.resolve(undefined),
        };
        engines.push(engine);
        return engine;
      }),
    });
    const first = getAnalyticsEngine();
    expect(getAnalyticsEngine()).toBe(first);
    resetConfig();
    expect(getAnalyticsEngine()).not.toBe(first);
    expect(engines).toHaveLength(2);
  });
});
