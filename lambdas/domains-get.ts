import { v1Handler } from '@shared/http/v1-handler';
import { domainIdPathSchema } from '@shared/schemas/domain-schemas';
import { getDomainResourceOrThrow } from '@shared/tenancy/list-domains';

export const handler = v1Handler({ route: 'domains-get', path: domainIdPathSchema }, async ({ auth, path }) => ({
  status: 200,
  data: await getDomainResourceOrThrow(auth.workspaceId, path.domainId),
}));
