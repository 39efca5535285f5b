import { analyticsEventsQuerySchema } from '@shared/analytics/query/analytics-schemas';
import { exportAnalyticsEvents } from '@shared/analytics/query/export-analytics-events';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(
  { route: 'analytics-events', query: analyticsEventsQuerySchema },
  async ({ auth, query }) => {
    const page = await exportAnalyticsEvents(auth.workspaceId, query);
    return { status: 200, data: page.data, pagination: page.pagination };
  },
);
