import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiContext } from '@shared/http/api-types';
import { captureOutput } from '@test/support/log-capture';

vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
});

// The limiter's counter write fails (DynamoDB throttling or an outage).
vi.mock('@shared/rate-limits/rate-limiter', () => ({
  countRequest: () => Promise.reject(new Error('ProvisionedThroughputExceededException')),
}));

const { rateLimitMiddleware } = await import('@shared/http/middleware/rate-limit');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the rate limiter failing open', () => {
  it('lets the request through unlimited, logs a warning and counts RateLimiterFailedOpen (Powertools EMF)', async () => {
    const context = { requestId: 'req-1', auth: { workspaceId: 'ws_1' } } as unknown as ApiContext;
    const before = rateLimitMiddleware('server').before;
    const output = captureOutput();
    const level = process.env.LOG_LEVEL;
    process.env.LOG_LEVEL = 'warn';
    try {
      await expect(before?.({ context } as never)).resolves.toBeUndefined();
    } finally {
      process.env.LOG_LEVEL = level;
      output.stop();
    }
    expect(context.rateLimitHeaders).toBeUndefined();
    const lines = output.json();
    expect(lines.find((line) => '_aws' in line)).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: 'LinkService',
            Dimensions: [['service']],
            Metrics: [{ Name: 'RateLimiterFailedOpen', Unit: 'Count' }],
          },
        ],
      },
      service: 'link-service',
      RateLimiterFailedOpen: 1,
    });
    expect(lines.find((line) => line.level === 'WARN')).toMatchObject({
      message: 'rate limiter unavailable; request not limited',
      requestId: 'req-1',
    });
  });
});
