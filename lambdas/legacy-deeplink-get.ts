import { legacyDeeplinkGetRoute } from '@shared/routes/legacy-routes';
import { legacyHandler } from '@shared/http/legacy-handler';
import { getLegacyDeepLinkOrThrow } from '@shared/legacy/legacy-links';
import { required } from '@shared/util/required';

export const handler = legacyHandler(legacyDeeplinkGetRoute, ({ auth, query }) =>
  getLegacyDeepLinkOrThrow(auth.workspaceId, required(auth.appId, 'the app id of the legacy app key'), query.shortLink),
);
