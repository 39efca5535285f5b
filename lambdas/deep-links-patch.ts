import { deepLinksPatchRoute } from '@shared/routes/deep-link-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { v1Handler } from '@shared/http/v1-handler';
import { patchLink } from '@shared/links/patch-link';

export const handler = v1Handler(deepLinksPatchRoute, async (input) => ({
  status: 200,
  data: await patchLink(input.auth.workspaceId, 'DEEPLINK', input.path.linkId, input.body, requestOrigin(input)),
}));
