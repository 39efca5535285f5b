/**
 * @linkservice/sdk: a typed client of the link service API. The types are generated from the
 * service's OpenAPI document (./generated/openapi.ts, `npm run sdk:generate`); requests go through
 * openapi-fetch (fetch only). This layer adds the API key, the resources and LinkServiceError.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';

export type { components, operations, paths } from './generated/openapi.js';
export type Link = components['schemas']['Link'];
export type LinkCreateRequest = components['schemas']['LinkCreateRequest'];
export type Pagination = components['schemas']['Pagination'];
export type LinkListQuery = NonNullable<operations['links-list']['parameters']['query']>;

/** One page of a list: its items, the cursor of the next page, and the request id. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
  requestId: string;
}

export interface LinkServiceOptions {
  /** A workspace server key (`sk_...`). Keep it server-side. */
  apiKey: string;
  /** The service API's base URL (the stack's `BaseUrl`; locally `http://127.0.0.1:3000`). */
  baseUrl: string;
  /** A fetch of your own (tests, proxies); the global fetch by default. */
  fetch?: typeof globalThis.fetch;
}

/** An error answer of the API: its status, `error.code`, message, details and request id. */
export class LinkServiceError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;
  readonly requestId: string | undefined;

  constructor(init: { status: number; code: string; message: string; details?: unknown; requestId?: string }) {
    super(init.message);
    this.name = 'LinkServiceError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The error of a failed answer. The v1 envelope gives code, message, details and requestId; any
 * other body (a gateway's own answer) gives `http_<status>` and the status text.
 */
const errorOf = (response: Response, body: unknown): LinkServiceError => {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const envelopeId = isRecord(body) && typeof body.requestId === 'string' ? body.requestId : undefined;
    return new LinkServiceError({
      status: response.status,
      code: error.code,
      message: error.message,
      details: error.details,
      requestId: envelopeId ?? requestId,
    });
  }
  return new LinkServiceError({
    status: response.status,
    code: `http_${String(response.status)}`,
    message: response.statusText || `HTTP ${String(response.status)}`,
    ...(requestId === undefined ? {} : { requestId }),
  });
};

/** The `data` of a success, or the LinkServiceError of a failure. */
const dataOf = <T>(result: { data?: { data: T }; error?: unknown; response: Response }): T => {
  if (!result.response.ok || result.data === undefined) throw errorOf(result.response, result.error);
  return result.data.data;
};

/** Short links: `/v1/links`. */
export class LinksResource {
  readonly #client: Client<paths>;

  constructor(client: Client<paths>) {
    this.#client = client;
  }

  /**
   * Creates a short link. Sends an `Idempotency-Key` (a random UUID unless given): the same key
   * and body within 24 hours answers the first link again, so repeating a create never makes two.
   */
  async create(body: LinkCreateRequest, options: { idempotencyKey?: string } = {}): Promise<Link> {
    const idempotencyKey = options.idempotencyKey ?? crypto.randomUUID();
    return dataOf(
      await this.#client.POST('/v1/links', { body, params: { header: { 'Idempotency-Key': idempotencyKey } } }),
    );
  }

  /** The link with this id (archived ones too). */
  async get(linkId: string): Promise<Link> {
    return dataOf(await this.#client.GET('/v1/links/{linkId}', { params: { path: { linkId } } }));
  }

  /**
   * One page of links (`await links.list(query)`; `pagination.nextCursor` is the next page's
   * `cursor`), or every link across the pages (`for await (const link of links.list(query))`).
   */
  list(query: LinkListQuery = {}): PageRequest<Link> {
    return new PageRequest(async (cursor) => {
      const result = await this.#client.GET('/v1/links', {
        params: { query: cursor === undefined ? query : { ...query, cursor } },
      });
      if (!result.response.ok || result.data === undefined) throw errorOf(result.response, result.error);
      return { data: result.data.data, pagination: result.data.pagination, requestId: result.data.requestId };
    }, query.cursor);
  }
}

/**
 * A list request: awaited, its first page; iterated with `for await`, every item of every page,
 * fetching the next page when the previous one is used up.
 */
export class PageRequest<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<Page<T>>;
  readonly #cursor: string | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, cursor: string | undefined) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  then<R1 = Page<T>, R2 = never>(
    onFulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#fetchPage(this.#cursor).then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let cursor = this.#cursor;
    for (;;) {
      const page = await this.#fetchPage(cursor);
      yield* page.data;
      if (!page.pagination.hasMore || page.pagination.nextCursor === null) return;
      cursor = page.pagination.nextCursor;
    }
  }
}

/** The link service API with a workspace server key. */
export class LinkService {
  readonly links: LinksResource;

  constructor(options: LinkServiceOptions) {
    const client = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { 'api-key': options.apiKey },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.links = new LinksResource(client);
  }
}
