import { analyticsDeepLinkAppRoute } from '@shared/routes/analytics-routes';
import { getAppAnalyticsOrThrow } from '@shared/analytics/query/get-app-analytics';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(analyticsDeepLinkAppRoute, async ({ auth, query }) => ({
  status: 200,
  data: await getAppAnalyticsOrThrow(auth.workspaceId, auth.appId, query),
}));
