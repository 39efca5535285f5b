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
  secret: (name: string): ItemKey => ({ pk: 'SECRET', sk: name }),
  /** A cached analytics answer: one per workspace, route, subject (link / app), range and traffic. */
  analyticsCache: (workspaceId: string, route: string, subjectId: string, range: string, traffic: string): ItemKey => ({
    pk: `ANALYTICS#${workspaceId}#${route}#${subjectId}#${range}#${traffic}`,
    sk: 'ANALYTICS',
  }),
};
