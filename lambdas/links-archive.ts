import { requestOrigin } from '@shared/audit/request-origin';
import { v1Handler } from '@shared/http/v1-handler';
import { archiveLink } from '@shared/links/patch-link';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';

export const handler = v1Handler({ route: 'links-archive', path: linkIdPathSchema }, async (input) => ({
  status: 200,
  data: await archiveLink(input.auth.workspaceId, 'SHORTLINK', input.path.linkId, requestOrigin(input)),
}));
