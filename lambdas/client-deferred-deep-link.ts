import { clientDeferredDeepLinkRoute } from '@shared/routes/client-routes';
import { clientRequestInfo } from '@shared/attribution/client-request';
import { findDeferredDeepLink } from '@shared/attribution/deferred-deep-link';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(clientDeferredDeepLinkRoute, async ({ auth, body, event }) => ({
  status: 200,
  data: await findDeferredDeepLink(auth, body, clientRequestInfo(event)),
}));
