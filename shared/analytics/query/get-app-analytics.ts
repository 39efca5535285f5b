import { AppError } from '@shared/errors/app-error';
import { appRepository } from '@shared/tenancy/app-repository';
import { getAnalyticsEngine } from './analytics-backend';
import { analyticsDeadline } from './analytics-engine';
import { withAnalyticsCache } from './analytics-cache';
import type { AnalyticsQuery } from './analytics-schemas';
import type { DeepLinkAppAnalyticsData } from './analytics-types';
import { computeAnalyticsData, computeTopLinks } from './compute-analytics';

/** GET /v1/analytics/deep-link-app: the app of the app key, every event of its deep links. */
export const getAppAnalyticsOrThrow = async (
  workspaceId: string,
  appId: string | null,
  query: AnalyticsQuery,
  now = new Date(),
): Promise<DeepLinkAppAnalyticsData> => {
  const deadline = analyticsDeadline();
  if (!appId) throw new AppError('forbidden', 'This key is not bound to a deep-link app');
  const app = await appRepository.getByIdOrThrow(workspaceId, appId);
  const engine = getAnalyticsEngine();
  return withAnalyticsCache(
    { workspaceId, route: 'app', subjectId: app.id, range: query.range, traffic: query.traffic },
    engine.cacheTtlSeconds,
    now,
    async () => {
      const request = { workspaceId, scope: { kind: 'app', appId: app.id } as const, query, now, deadline };
      const [data, topLinks] = await Promise.all([
        computeAnalyticsData(engine, request),
        computeTopLinks(engine, request),
      ]);
      // Rule and variant ids are a link's own: the app's analytics has no breakdown by them.
      const { ruleBreakdown: _rules, variantBreakdown: _variants, ...appData } = data;
      return { ...appData, topLinks };
    },
  );
};
