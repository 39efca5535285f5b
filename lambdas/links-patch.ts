import { requestOrigin } from '@shared/audit/request-origin';
import { v1Handler } from '@shared/http/v1-handler';
import { patchLink } from '@shared/links/patch-link';
import { linkIdPathSchema } from '@shared/schemas/link-id-path-schema';
import { patchLinkBodySchema } from '@shared/schemas/link-schemas';

export const handler = v1Handler(
  { route: 'links-patch', path: linkIdPathSchema, body: patchLinkBodySchema },
  async (input) => ({
    status: 200,
    data: await patchLink(input.auth.workspaceId, 'SHORTLINK', input.path.linkId, input.body, requestOrigin(input)),
  }),
);
