import { requestOrigin } from '@shared/audit/request-origin';
import { bulkCreateLinks } from '@shared/links/bulk-create-links';
import { v1Handler } from '@shared/http/v1-handler';
import { bulkCreateLinksBodySchema } from '@shared/schemas/bulk-schemas';

export const handler = v1Handler(
  { route: 'links-bulk-create', body: bulkCreateLinksBodySchema, idempotent: true },
  async (input) => ({
    status: 200,
    data: await bulkCreateLinks(input.auth.workspaceId, input.body.links, requestOrigin(input)),
  }),
);
