import { analyticsQuerySchema } from '@shared/analytics/query/analytics-schemas';
import { getLinkAnalyticsOrThrow } from '@shared/analytics/query/get-link-analytics';
import { v1Handler } from '@shared/http/v1-handler';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';

export const handler = v1Handler(
  { route: 'analytics-link', path: linkIdPathSchema, query: analyticsQuerySchema },
  async ({ auth, path, query }) => ({
    status: 200,
    data: await getLinkAnalyticsOrThrow(auth.workspaceId, path.linkId, query),
  }),
);
