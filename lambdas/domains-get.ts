import { domainsGetRoute } from '@shared/routes/domain-routes';
import { v1Handler } from '@shared/http/v1-handler';
import { getDomainResourceOrThrow } from '@shared/tenancy/list-domains';

export const handler = v1Handler(domainsGetRoute, async ({ auth, path }) => ({
  status: 200,
  data: await getDomainResourceOrThrow(auth.workspaceId, path.domainId),
}));
