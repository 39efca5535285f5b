import { legacyLinkCreateRoute } from '@shared/routes/legacy-routes';
import { requestOrigin } from '@shared/audit/request-origin';
import { legacyHandler } from '@shared/http/legacy-handler';
import { createLegacyShortLink } from '@shared/legacy/legacy-links';

export const handler = legacyHandler(legacyLinkCreateRoute, (input) =>
  createLegacyShortLink(input.auth.workspaceId, input.form, requestOrigin(input)),
);
