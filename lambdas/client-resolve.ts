import { clientRequestInfo } from '@shared/attribution/client-request';
import { resolveClientLink } from '@shared/attribution/client-resolve';
import { clientLinkReferenceSchema } from '@shared/attribution/client-schemas';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler(
  { route: 'client-resolve', body: clientLinkReferenceSchema },
  async ({ auth, body, event }) => ({
    status: 200,
    data: await resolveClientLink(auth.workspaceId, body, clientRequestInfo(event)),
  }),
);
