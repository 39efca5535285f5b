import { v1Handler } from '@shared/http/v1-handler';
import { listLinks } from '@shared/links/list-links';
import { listLinksQuerySchema } from '@shared/schemas/list-schemas';

export const handler = v1Handler(
  { route: 'deep-links-list', query: listLinksQuerySchema },
  async ({ auth, query }) => ({
    status: 200,
    ...(await listLinks(auth.workspaceId, 'DEEPLINK', query)),
  }),
);
