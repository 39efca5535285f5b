import { domainsListRoute } from '@shared/routes/domain-routes';
import { v1Handler } from '@shared/http/v1-handler';
import { listDomains } from '@shared/tenancy/list-domains';

export const handler = v1Handler(domainsListRoute, async ({ auth, query }) => ({
  status: 200,
  ...(await listDomains(auth.workspaceId, query)),
}));
