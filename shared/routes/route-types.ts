import type { CredentialKind } from '@shared/auth/credential';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD' | 'OPTIONS' | 'ANY';

/** Which HTTP API serves the route: the service API (v1, legacy, meta) or the short-link edge. */
export type ApiName = 'service' | 'edge';

export interface RouteDef {
  /** Lambda name and handler entry: `lambdas/{handler}.ts`. */
  handler: string;
  method: HttpMethod;
  /** API Gateway path, `{param}` for path parameters, `{proxy+}` for greedy, `$default` for the catch-all. */
  path: string;
  credential: CredentialKind;
  api: ApiName;
  /** Least privilege: what the function may do with the table, and whether it sends events. */
  grants: { table: 'none' | 'read' | 'readWrite'; events?: boolean; analytics?: boolean };
  summary: string;
  /** A route whose work is heavier than one request's: more memory (CPU) and time than the defaults. */
  lambda?: { memorySize?: number; timeoutSeconds?: number };
}

export const handlerEntry = (route: Pick<RouteDef, 'handler'>) => `lambdas/${route.handler}.ts`;
