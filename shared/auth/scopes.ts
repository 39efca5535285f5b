/**
 * Scopes of server keys (least privilege). Each server route names the one scope it needs in the
 * route table; a key carries a list of scopes. `read` stands for every `*:read` scope and `all`
 * for every scope (the behaviour of keys created before scopes existed: a key without a scope list
 * has `all`).
 */
export const routeScopes = ['links:read', 'links:write', 'domains:read', 'analytics:read', 'audit:read'] as const;
export type RouteScope = (typeof routeScopes)[number];

export const scopeShorthands = ['read', 'all'] as const;
export type KeyScope = RouteScope | (typeof scopeShorthands)[number];
export const keyScopes: readonly KeyScope[] = [...routeScopes, ...scopeShorthands];

export const isKeyScope = (value: string): value is KeyScope => (keyScopes as readonly string[]).includes(value);

/** The scopes of a stored key: none recorded (a key older than scopes) means `all`. */
export const scopesOf = (record: { scopes?: readonly KeyScope[] | null }): readonly KeyScope[] =>
  record.scopes ?? ['all'];

/** Whether a key with `granted` scopes may call a route that needs `required`. */
export const grants = (granted: readonly KeyScope[], required: RouteScope): boolean =>
  granted.some((s) => s === 'all' || s === required || (s === 'read' && required.endsWith(':read')));
