import { linksListRoute } from '@shared/routes/link-routes';
import { v1Handler } from '@shared/http/v1-handler';
import { listLinks } from '@shared/links/list-links';

export const handler = v1Handler(linksListRoute, async ({ auth, query }) => ({
  status: 200,
  ...(await listLinks(auth.workspaceId, 'SHORTLINK', query)),
}));
