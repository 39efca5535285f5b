import { linksPatchRoute } from '@shared/routes/link-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { v1Handler } from '@shared/http/v1-handler';
import { patchLink } from '@shared/links/patch-link';

export const handler = v1Handler(linksPatchRoute, async (input) => ({
  status: 200,
  data: await patchLink(input.auth.workspaceId, 'SHORTLINK', input.path.linkId, input.body, requestOrigin(input)),
}));
