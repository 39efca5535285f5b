import { deepLinksGetRoute } from '@shared/routes/deep-link-routes';
import { getLinkResourceOrThrow } from '@shared/links/get-link';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(deepLinksGetRoute, async ({ auth, path }) => ({
  status: 200,
  data: await getLinkResourceOrThrow(auth.workspaceId, path.linkId, 'DEEPLINK'),
}));
