import { requestOrigin } from '@shared/audit/request-origin';
import { legacyHandler } from '@shared/http/legacy-handler';
import { decodeLegacyLinkForm } from '@shared/legacy/legacy-form';
import { createLegacyShortLink } from '@shared/legacy/legacy-links';

export const handler = legacyHandler({ route: 'legacy-link-create', form: decodeLegacyLinkForm }, (input) =>
  createLegacyShortLink(input.auth.workspaceId, input.form, requestOrigin(input)),
);
