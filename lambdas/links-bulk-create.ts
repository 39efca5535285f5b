import { linksBulkCreateRoute } from '@shared/routes/link-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { bulkCreateLinks } from '@shared/links/bulk-create-links';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(linksBulkCreateRoute, async (input) => ({
  status: 200,
  data: await bulkCreateLinks(input.auth.workspaceId, input.body.links, requestOrigin(input)),
}));
