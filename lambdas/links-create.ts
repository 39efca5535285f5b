import { linksCreateRoute } from '@shared/routes/link-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { createShortLink } from '@shared/links/create-link';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(linksCreateRoute, async (input) => ({
  status: 201,
  data: await createShortLink(input.auth.workspaceId, input.body, requestOrigin(input)),
}));
