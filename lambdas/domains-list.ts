import { v1Handler } from '@shared/http/v1-handler';
import { listDomainsQuerySchema } from '@shared/schemas/list-schemas';
import { listDomains } from '@shared/tenancy/list-domains';

export const handler = v1Handler({ route: 'domains-list', query: listDomainsQuerySchema }, async ({ auth, query }) => ({
  status: 200,
  ...(await listDomains(auth.workspaceId, query)),
}));
