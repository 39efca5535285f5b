import { deepLinksCreateRoute } from '@shared/routes/deep-link-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { createDeepLink } from '@shared/links/create-deep-link';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(deepLinksCreateRoute, async (input) => ({
  status: 201,
  data: await createDeepLink(input.auth.workspaceId, input.body, requestOrigin(input)),
}));
