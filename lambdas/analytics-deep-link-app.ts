import { analyticsQuerySchema } from '@shared/analytics/query/analytics-schemas';
import { getAppAnalyticsOrThrow } from '@shared/analytics/query/get-app-analytics';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(
  { route: 'analytics-deep-link-app', query: analyticsQuerySchema },
  async ({ auth, query }) => ({
    status: 200,
    data: await getAppAnalyticsOrThrow(auth.workspaceId, auth.appId, query),
  }),
);
