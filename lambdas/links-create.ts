import { requestOrigin } from '@shared/audit/request-origin';
import { createShortLink } from '@shared/links/create-link';
import { v1Handler } from '@shared/http/v1-handler';
import { createLinkBodySchema } from '@shared/schemas/link-schemas';

export const handler = v1Handler(
  { route: 'links-create', body: createLinkBodySchema, idempotent: true },
  async (input) => ({
    status: 201,
    data: await createShortLink(input.auth.workspaceId, input.body, requestOrigin(input)),
  }),
);
