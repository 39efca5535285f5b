import { recordClientClick } from '@shared/attribution/client-click';
import { clientRequestInfo } from '@shared/attribution/client-request';
import { clientClickBodySchema } from '@shared/attribution/client-schemas';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(
  { route: 'client-click', body: clientClickBodySchema },
  async ({ auth, body, event }) => ({
    status: 201,
    data: await recordClientClick(auth.workspaceId, body, clientRequestInfo(event)),
  }),
);
