import type { $ZodType } from 'zod/v4/core';
import type { RouteDef } from './route-types';

/** The zod schemas a v1 route validates its request with (each part the route reads). */
export interface RequestSchemas {
  readonly body?: $ZodType;
  readonly query?: $ZodType;
  readonly path?: $ZodType;
}

/** The request schemas of a route that reads nothing of the request. */
export interface NoRequest {
  readonly body?: never;
  readonly query?: never;
  readonly path?: never;
}

/**
 * A v1 route: its row of the route table, the schemas its request is validated with, and the
 * type of its success reply's `data` (`D`; `never` for a route that answers no data). Its Lambda
 * entry imports it and hands it to `v1Handler` (shared/http/v1-handler.ts), which validates the
 * request with these schemas and holds the handler to this reply type. A Lambda bundle carries
 * only its own route: the rows are plain objects, so esbuild drops the others, and the package is
 * marked free of import side effects, so it drops the schema modules only they use too.
 */
export interface V1Route<S extends RequestSchemas = RequestSchemas, D = unknown> extends RouteDef {
  readonly request: S;
  /** Honour `Idempotency-Key` (POST creates); scoped per workspace and route. */
  readonly idempotent?: boolean;
  /** A type only, never set: the `data` of the route's success reply. */
  readonly replyData?: D;
}

/**
 * A legacy (`/api/mobile/*`) route: its row, the decoder of its multipart form (POST routes; it
 * validates and throws a LegacyError) and the type of the `data` it answers.
 */
export interface LegacyRoute<F = undefined, D = unknown> extends RouteDef {
  readonly decodeForm?: (fields: Map<string, string>) => F;
  /** A type only, never set: the `data` of `{success:true, data}`. */
  readonly replyData?: D;
}
