import { clientRequestInfo } from '@shared/attribution/client-request';
import { firstOpenBodySchema } from '@shared/attribution/client-schemas';
import { recordFirstOpen } from '@shared/attribution/first-open';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(
  { route: 'client-first-open', body: firstOpenBodySchema },
  async ({ auth, body, event }) => ({
    status: 201,
    data: await recordFirstOpen(auth, body, clientRequestInfo(event)),
  }),
);
