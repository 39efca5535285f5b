import { clientResolveRoute } from '@shared/routes/client-routes';
import { clientRequestInfo } from '@shared/attribution/client-request';
import { resolveClientLink } from '@shared/attribution/client-resolve';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(clientResolveRoute, async ({ auth, body, event }) => ({
  status: 200,
  data: await resolveClientLink(auth.workspaceId, body, clientRequestInfo(event)),
}));
