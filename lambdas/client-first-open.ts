import { clientFirstOpenRoute } from '@shared/routes/client-routes';
import { clientRequestInfo } from '@shared/attribution/client-request';
import { recordFirstOpen } from '@shared/attribution/first-open';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(clientFirstOpenRoute, async ({ auth, body, event }) => ({
  status: 201,
  data: await recordFirstOpen(auth, body, clientRequestInfo(event)),
}));
