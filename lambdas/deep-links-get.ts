import { getLinkResourceOrThrow } from '@shared/links/get-link';
import { v1Handler } from '@shared/http/v1-handler';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';

export const handler = v1Handler({ route: 'deep-links-get', path: linkIdPathSchema }, async ({ auth, path }) => ({
  status: 200,
  data: await getLinkResourceOrThrow(auth.workspaceId, path.linkId, 'DEEPLINK'),
}));
