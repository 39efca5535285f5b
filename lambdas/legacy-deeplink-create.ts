import { legacyHandler } from '@shared/http/legacy-handler';
import { decodeLegacyDeepLinkForm } from '@shared/legacy/legacy-form';
import { createLegacyDeepLink } from '@shared/legacy/legacy-links';

export const handler = legacyHandler(
  { route: 'legacy-deeplink-create', form: decodeLegacyDeepLinkForm },
  ({ auth, form }) => createLegacyDeepLink(auth.workspaceId, auth.appId!, form),
);
