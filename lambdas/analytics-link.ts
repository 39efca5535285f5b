import { analyticsLinkRoute } from '@shared/routes/analytics-routes';
import { getLinkAnalyticsOrThrow } from '@shared/analytics/query/get-link-analytics';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(analyticsLinkRoute, async ({ auth, path, query }) => ({
  status: 200,
  data: await getLinkAnalyticsOrThrow(auth.workspaceId, path.linkId, query),
}));
