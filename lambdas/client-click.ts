import { clientClickRoute } from '@shared/routes/client-routes';
import { recordClientClick } from '@shared/attribution/client-click';
import { clientRequestInfo } from '@shared/attribution/client-request';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(clientClickRoute, async ({ auth, body, event }) => ({
  status: 201,
  data: await recordClientClick(auth.workspaceId, body, clientRequestInfo(event)),
}));
