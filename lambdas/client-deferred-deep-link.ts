import { clientRequestInfo } from '@shared/attribution/client-request';
import { firstOpenBodySchema } from '@shared/attribution/client-schemas';
import { findDeferredDeepLink } from '@shared/attribution/deferred-deep-link';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(
  { route: 'client-deferred-deep-link', body: firstOpenBodySchema },
  async ({ auth, body, event }) => ({
    status: 200,
    data: await findDeferredDeepLink(auth, body, clientRequestInfo(event)),
  }),
);
