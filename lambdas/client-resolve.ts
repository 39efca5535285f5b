import { clientLinkPayloadOf, resolveClientLinkOrThrow } from '@shared/attribution/client-link';
import { clientLinkReferenceSchema } from '@shared/attribution/client-schemas';
import { v1Handler } from '@shared/http/v1-handler';

export const handler = v1Handler({ route: 'client-resolve', body: clientLinkReferenceSchema }, async ({ auth, body }) => ({
  status: 200,
  data: { link: clientLinkPayloadOf(await resolveClientLinkOrThrow(auth.workspaceId, body)) },
}));
