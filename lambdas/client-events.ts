import { clientEventsRoute } from '@shared/routes/client-routes';
import { clientRequestInfo } from '@shared/attribution/client-request';
import { recordCustomerEvents } from '@shared/attribution/customer-events';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(clientEventsRoute, async ({ auth, body, event }) => ({
  status: 202,
  data: {
    accepted: await recordCustomerEvents(
      auth.workspaceId,
      body,
      clientRequestInfo(event),
      new Date(),
      auth.publishable?.platform === 'browser' ? 'browser' : 'api',
    ),
  },
}));
