/** Every key of the single table is built here, and nowhere else. */
export interface ItemKey {
  pk: string;
  sk: string;
}

export const keys = {
  workspace: (workspaceId: string): ItemKey => ({ pk: `WS#${workspaceId}`, sk: 'WORKSPACE' }),
  apiKey: (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  domain: (workspaceId: string, domainId: string): ItemKey => ({ pk: `WS#${workspaceId}`, sk: `DOMAIN#${domainId}` }),
  domainsOfWorkspace: (workspaceId: string) => ({ pk: `WS#${workspaceId}`, skPrefix: 'DOMAIN#' }),
  host: (hostname: string): ItemKey => ({ pk: `HOST#${hostname.toLowerCase()}`, sk: 'HOST' }),
  app: (workspaceId: string, appId: string): ItemKey => ({ pk: `WS#${workspaceId}`, sk: `APP#${appId}` }),
  link: (linkId: string): ItemKey => ({ pk: `LINK#${linkId}`, sk: 'LINK' }),
  slug: (domain: string, key: string): ItemKey => ({ pk: `SLUG#${domain.toLowerCase()}#${key}`, sk: 'SLUG' }),
  tag: (workspaceId: string, tagName: string): ItemKey => ({
    pk: `WS#${workspaceId}`,
    sk: `TAG#${tagName.toLowerCase()}`,
  }),
  idempotency: (workspaceId: string, route: string, keyHash: string): ItemKey => ({
    pk: `IDEM#${workspaceId}#${route}#${keyHash}`,
    sk: 'IDEM',
  }),
  /** Password tries of one client (salted IP hash) on one link; expires by TTL. */
  passwordAttempts: (linkId: string, clientHash: string): ItemKey => ({ pk: `PWTRY#${linkId}#${clientHash}`, sk: 'PWTRY' }),
  secret: (name: string): ItemKey => ({ pk: 'SECRET', sk: name }),
};
