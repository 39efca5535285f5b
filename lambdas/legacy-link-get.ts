import { legacyHandler } from '@shared/http/legacy-handler';
import { getLegacyShortLinkOrThrow } from '@shared/legacy/legacy-links';

export const handler = legacyHandler({ route: 'legacy-link-get' }, ({ auth, query }) =>
  getLegacyShortLinkOrThrow(auth.workspaceId, query.shortLink),
);
