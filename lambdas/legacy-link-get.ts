import { legacyLinkGetRoute } from '@shared/routes/legacy-routes';
import { legacyHandler } from '@shared/http/legacy-handler';
import { getLegacyShortLinkOrThrow } from '@shared/legacy/legacy-links';

export const handler = legacyHandler(legacyLinkGetRoute, ({ auth, query }) =>
  getLegacyShortLinkOrThrow(auth.workspaceId, query.shortLink),
);
