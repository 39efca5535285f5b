import { legacyHandler } from '@shared/http/legacy-handler';
import { getLegacyDeepLinkOrThrow } from '@shared/legacy/legacy-links';

export const handler = legacyHandler({ route: 'legacy-deeplink-get' }, ({ auth, query }) =>
  getLegacyDeepLinkOrThrow(auth.workspaceId, auth.appId!, query.shortLink),
);
