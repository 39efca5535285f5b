import { requestOrigin } from '@shared/audit/request-origin';
import { createDeepLink } from '@shared/links/create-deep-link';
import { v1Handler } from '@shared/http/v1-handler';
import { createDeepLinkBodySchema } from '@shared/schemas/link-schemas';

export const handler = v1Handler(
  { route: 'deep-links-create', body: createDeepLinkBodySchema, idempotent: true },
  async (input) => ({
    status: 201,
    data: await createDeepLink(input.auth.workspaceId, input.body, requestOrigin(input)),
  }),
);
