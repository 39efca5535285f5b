import { notFound } from '@shared/errors/app-error';
import { linkRepository } from '@shared/links/link-repository';
import { getAnalyticsEngine } from './analytics-backend';
import { analyticsDeadline } from './analytics-engine';
import { withAnalyticsCache } from './analytics-cache';
import type { AnalyticsQuery } from './analytics-schemas';
import { withDestinationLabels } from './analytics-rows';
import type { LinkAnalyticsData } from './analytics-types';
import { computeAnalyticsData } from './compute-analytics';

/**
 * GET /v1/analytics/links/{linkId}: any link of the workspace, short link or deep link (both
 * are Links; archived ones keep their analytics). Another workspace's id or an unknown id: 404.
 */
export const getLinkAnalyticsOrThrow = async (
  workspaceId: string,
  linkId: string,
  query: AnalyticsQuery,
  now = new Date(),
): Promise<LinkAnalyticsData> => {
  const deadline = analyticsDeadline();
  // Not getByIdOrThrow(..., linkType): that answers 404 for the other type, and both types
  // have analytics here. Same tenancy rule, one read.
  const link = await linkRepository.findById(linkId);
  if (!link || link.workspaceId !== workspaceId) throw notFound('Link');
  const engine = getAnalyticsEngine();
  const data = await withAnalyticsCache(
    { workspaceId, route: 'link', subjectId: link.id, range: query.range, traffic: query.traffic },
    engine.cacheTtlSeconds,
    now,
    () =>
      computeAnalyticsData(engine, {
        workspaceId,
        scope: { kind: 'link', linkId: link.id },
        query,
        now,
        deadline,
        // Conversions per variant: a third query, only for a link running an A/B test.
        variantConversions: Boolean(link.variants?.length),
      }),
  );
  // Labelled after the cache, from the link as it is now.
  return {
    ...data,
    ruleBreakdown: withDestinationLabels(data.ruleBreakdown, link.rules),
    variantBreakdown: withDestinationLabels(data.variantBreakdown, link.variants),
  };
};
