import { deepLinksArchiveRoute } from '@shared/routes/deep-link-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { v1Handler } from '@shared/http/v1-handler';
import { archiveLink } from '@shared/links/patch-link';

export const handler = v1Handler(deepLinksArchiveRoute, async (input) => ({
  status: 200,
  data: await archiveLink(input.auth.workspaceId, 'DEEPLINK', input.path.linkId, requestOrigin(input)),
}));
