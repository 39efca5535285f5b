import { deepLinksListRoute } from '@shared/routes/deep-link-routes';
import { v1Handler } from '@shared/http/v1-handler';
import { listLinks } from '@shared/links/list-links';

export const handler = v1Handler(deepLinksListRoute, async ({ auth, query }) => ({
  status: 200,
  ...(await listLinks(auth.workspaceId, 'DEEPLINK', query)),
}));
