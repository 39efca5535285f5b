import { analyticsEventsRoute } from '@shared/routes/analytics-routes';
import { exportAnalyticsEvents } from '@shared/analytics/query/export-analytics-events';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(analyticsEventsRoute, async ({ auth, query }) => {
  const page = await exportAnalyticsEvents(auth.workspaceId, query);
  return { status: 200, data: page.data, pagination: page.pagination };
});
