/**
 * @linkservice/sdk: a typed client of the link service API. The types are generated from the
 * service's OpenAPI document (./generated/openapi.ts, `npm run sdk:generate`); requests go through
 * openapi-fetch (fetch only). This layer adds the keys, the resources, retries and LinkServiceError.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi.js';
import { retryingFetch, type RetryOptions } from './retry.js';

export type { components, operations, paths } from './generated/openapi.js';
export type { RetryOptions } from './retry.js';
export type Link = components['schemas']['Link'];
export type LinkCreateRequest = components['schemas']['LinkCreateRequest'];
export type Pagination = components['schemas']['Pagination'];
export type LinkListQuery = NonNullable<operations['links-list']['parameters']['query']>;
export type LinkPatchRequest = components['schemas']['LinkPatchRequest'];
export type LinkBulkCreateRequest = components['schemas']['LinkBulkCreateRequest'];
export type LinkBulkResults = components['schemas']['LinkBulkResults'];
export type DeepLinkCreateRequest = components['schemas']['DeepLinkCreateRequest'];
export type DeepLinkListQuery = NonNullable<operations['deep-links-list']['parameters']['query']>;
export type QrQuery = NonNullable<operations['links-qr']['parameters']['query']>;
export type Domain = components['schemas']['Domain'];
export type DomainListQuery = NonNullable<operations['domains-list']['parameters']['query']>;
export type AnalyticsData = components['schemas']['AnalyticsData'];
export type AnalyticsQuery = NonNullable<operations['analytics-link']['parameters']['query']>;
export type DeepLinkAppAnalyticsData = components['schemas']['DeepLinkAppAnalyticsData'];
export type RawAnalyticsEvent = components['schemas']['RawAnalyticsEvent'];
export type AnalyticsEventsQuery = NonNullable<operations['analytics-events']['parameters']['query']>;
export type AuditEntry = components['schemas']['AuditEntry'];
export type AuditLogQuery = NonNullable<operations['audit-log-list']['parameters']['query']>;
export type Session = components['schemas']['Session'];
export type SessionCreateRequest = components['schemas']['SessionCreateRequest'];
export type ClientLinkReference = components['schemas']['ClientLinkReference'];
export type ClientResolveResponse = components['schemas']['ClientResolveResponse'];
export type ClientClickRequest = components['schemas']['ClientClickRequest'];
export type ClientClickResponse = components['schemas']['ClientClickResponse'];
export type FirstOpenRequest = components['schemas']['FirstOpenRequest'];
export type DeferredDeepLinkResponse = components['schemas']['DeferredDeepLinkResponse'];
export type FirstOpenResponse = components['schemas']['FirstOpenResponse'];
export type CustomerEventsRequest = components['schemas']['CustomerEventsRequest'];
export type CustomerEventsResponse = components['schemas']['CustomerEventsResponse'];

/** One page of a list: its items, the cursor of the next page, and the request id. */
export interface Page<T> {
  data: T[];
  pagination: Pagination;
  requestId: string;
}

export interface LinkServiceOptions {
  /** A workspace server key (`sk_...`), sent as `api-key`. Keep it server-side. */
  apiKey?: string;
  /**
   * Session mode, for a page served on the API's own origin (the web console): no key is sent;
   * the browser's `__Host-session` cookie (set by `sessions.create`) goes with every request
   * (`credentials: 'same-origin'`) together with the header `x-requested-with: console`, without
   * which the API refuses the cookie. Not with `apiKey`.
   */
  session?: boolean;
  /** A publishable key (`pk_...`), sent as `x-publishable-key`: for `client.*` only. */
  publishableKey?: string;
  /** Headers sent with every request (e.g. a publishable key's `x-ios-bundle-id`). */
  headers?: Record<string, string>;
  /** Retries of idempotent requests answered 429 or 5xx (default: 2 retries with backoff). */
  retry?: RetryOptions;
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

/** One page of a list answer, or the LinkServiceError of a failure. */
const pageOf = <T>(result: {
  data?: { data: T[]; pagination: Pagination; requestId: string };
  error?: unknown;
  response: Response;
}): Page<T> => {
  if (!result.response.ok || result.data === undefined) throw errorOf(result.response, result.error);
  return { data: result.data.data, pagination: result.data.pagination, requestId: result.data.requestId };
};

/** A QR code image (SVG or PNG) as a Blob, or the LinkServiceError of a failure. */
const blobOf = (result: { data?: Blob; error?: unknown; response: Response }): Blob => {
  if (!result.response.ok || result.data === undefined) throw errorOf(result.response, result.error);
  return result.data;
};

/** The header of a create: the given Idempotency-Key, or a random UUID. */
const idempotency = (options: { idempotencyKey?: string }) => ({
  header: { 'Idempotency-Key': options.idempotencyKey ?? crypto.randomUUID() },
});

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
    return dataOf(await this.#client.POST('/v1/links', { body, params: idempotency(options) }));
  }

  /** Creates up to the API's bulk limit of links at once; each result says created or failed. */
  async bulkCreate(body: LinkBulkCreateRequest, options: { idempotencyKey?: string } = {}): Promise<LinkBulkResults> {
    return dataOf(await this.#client.POST('/v1/links/bulk', { body, params: idempotency(options) }));
  }

  /** The link with this id (archived ones too). */
  async get(linkId: string): Promise<Link> {
    return dataOf(await this.#client.GET('/v1/links/{linkId}', { params: { path: { linkId } } }));
  }

  /** Changes the given fields (`archived: false` restores an archived link). */
  async update(linkId: string, body: LinkPatchRequest): Promise<Link> {
    return dataOf(await this.#client.PATCH('/v1/links/{linkId}', { body, params: { path: { linkId } } }));
  }

  /** Archives the link: it stops redirecting and keeps its slug. */
  async archive(linkId: string): Promise<Link> {
    return dataOf(await this.#client.DELETE('/v1/links/{linkId}', { params: { path: { linkId } } }));
  }

  /** The link's QR code (SVG unless `format: 'png'`). */
  async qr(linkId: string, query: QrQuery = {}): Promise<Blob> {
    return blobOf(
      await this.#client.GET('/v1/links/{linkId}/qr', { params: { path: { linkId }, query }, parseAs: 'blob' }),
    );
  }

  /**
   * One page of links (`await links.list(query)`; `pagination.nextCursor` is the next page's
   * `cursor`), or every link across the pages (`for await (const link of links.list(query))`).
   */
  list(query: LinkListQuery = {}): PageRequest<Link> {
    return new PageRequest(
      async (cursor) => pageOf(await this.#client.GET('/v1/links', { params: { query: withCursor(query, cursor) } })),
      query.cursor,
    );
  }
}

/** Deep links (links of a deep-link app): `/v1/deep-links`. */
export class DeepLinksResource {
  readonly #client: Client<paths>;

  constructor(client: Client<paths>) {
    this.#client = client;
  }

  /** Creates a deep link; sends an `Idempotency-Key` like `links.create`. */
  async create(body: DeepLinkCreateRequest, options: { idempotencyKey?: string } = {}): Promise<Link> {
    return dataOf(await this.#client.POST('/v1/deep-links', { body, params: idempotency(options) }));
  }

  /** The deep link with this id. */
  async get(linkId: string): Promise<Link> {
    return dataOf(await this.#client.GET('/v1/deep-links/{linkId}', { params: { path: { linkId } } }));
  }

  /** Changes the given fields. */
  async update(linkId: string, body: LinkPatchRequest): Promise<Link> {
    return dataOf(await this.#client.PATCH('/v1/deep-links/{linkId}', { body, params: { path: { linkId } } }));
  }

  /** Archives the deep link. */
  async archive(linkId: string): Promise<Link> {
    return dataOf(await this.#client.DELETE('/v1/deep-links/{linkId}', { params: { path: { linkId } } }));
  }

  /** The deep link's QR code (SVG unless `format: 'png'`). */
  async qr(linkId: string, query: QrQuery = {}): Promise<Blob> {
    return blobOf(
      await this.#client.GET('/v1/deep-links/{linkId}/qr', { params: { path: { linkId }, query }, parseAs: 'blob' }),
    );
  }

  /** One page of deep links, or every one across the pages with `for await`. */
  list(query: DeepLinkListQuery = {}): PageRequest<Link> {
    return new PageRequest(
      async (cursor) =>
        pageOf(await this.#client.GET('/v1/deep-links', { params: { query: withCursor(query, cursor) } })),
      query.cursor,
    );
  }
}

/** The workspace's domains: `/v1/domains`. */
export class DomainsResource {
  readonly #client: Client<paths>;

  constructor(client: Client<paths>) {
    this.#client = client;
  }

  /** The domain with this id. */
  async get(domainId: string): Promise<Domain> {
    return dataOf(await this.#client.GET('/v1/domains/{domainId}', { params: { path: { domainId } } }));
  }

  /** One page of domains, or every one across the pages with `for await`. */
  list(query: DomainListQuery = {}): PageRequest<Domain> {
    return new PageRequest(
      async (cursor) => pageOf(await this.#client.GET('/v1/domains', { params: { query: withCursor(query, cursor) } })),
      query.cursor,
    );
  }
}

/** Analytics: `/v1/analytics/*`. */
export class AnalyticsResource {
  readonly #client: Client<paths>;

  constructor(client: Client<paths>) {
    this.#client = client;
  }

  /** A link's clicks over a range (totals, time series, breakdowns). */
  async link(linkId: string, query: AnalyticsQuery = {}): Promise<AnalyticsData> {
    return dataOf(await this.#client.GET('/v1/analytics/links/{linkId}', { params: { path: { linkId }, query } }));
  }

  /** The deep-link app's analytics over a range: with the app's key (`apiKey`), not a server key. */
  async deepLinkApp(query: AnalyticsQuery = {}): Promise<DeepLinkAppAnalyticsData> {
    return dataOf(await this.#client.GET('/v1/analytics/deep-link-app', { params: { query } }));
  }

  /** One page of raw events, or every one across the pages with `for await`. */
  events(query: AnalyticsEventsQuery = {}): PageRequest<RawAnalyticsEvent> {
    return new PageRequest(
      async (cursor) =>
        pageOf(await this.#client.GET('/v1/analytics/events', { params: { query: withCursor(query, cursor) } })),
      query.cursor,
    );
  }
}

/** The workspace's audit log: `/v1/audit-log`. */
export class AuditLogResource {
  readonly #client: Client<paths>;

  constructor(client: Client<paths>) {
    this.#client = client;
  }

  /** One page of entries (newest first), or every one across the pages with `for await`. */
  list(query: AuditLogQuery = {}): PageRequest<AuditEntry> {
    return new PageRequest(
      async (cursor) =>
        pageOf(await this.#client.GET('/v1/audit-log', { params: { query: withCursor(query, cursor) } })),
      query.cursor,
    );
  }
}

/**
 * Console sign-in: `/v1/sessions`. `create` exchanges a server key for a session cookie (the key
 * is sent once, in the body, and not kept); `delete` signs out (the cookie is cleared).
 */
export class SessionsResource {
  readonly #client: Client<paths>;

  constructor(client: Client<paths>) {
    this.#client = client;
  }

  /** Signs in: the session's workspace, the key's scopes and when it expires (the cookie is the browser's). */
  async create(body: SessionCreateRequest): Promise<Session> {
    return dataOf(await this.#client.POST('/v1/sessions', { body }));
  }

  /** Signs out: the session ends and its cookie is cleared (no error without one). */
  async delete(): Promise<void> {
    const { response, error } = await this.#client.DELETE('/v1/sessions/current');
    if (!response.ok) throw errorOf(response, error);
  }
}

/** Client attribution with a publishable key: `/v1/client/*` (the only routes browsers may call). */
export class ClientResource {
  readonly #client: Client<paths>;

  constructor(client: Client<paths>) {
    this.#client = client;
  }

  /** Resolves a short link (by id, short-link URL, or domain and key) to its destination. */
  async resolve(body: ClientLinkReference): Promise<ClientResolveResponse> {
    return dataOf(await this.#client.POST('/v1/client/resolve', { body }));
  }

  /** Records a click on a link from the app or page. */
  async click(body: ClientClickRequest): Promise<ClientClickResponse> {
    return dataOf(await this.#client.POST('/v1/client/attribution/click', { body }));
  }

  /** The deferred deep link of a first open, if a click matches. */
  async deferredDeepLink(body: FirstOpenRequest): Promise<DeferredDeepLinkResponse> {
    return dataOf(await this.#client.POST('/v1/client/deferred-deep-link', { body }));
  }

  /** Records an app's first open (an install, attributed to a click when one matches). */
  async firstOpen(body: FirstOpenRequest): Promise<FirstOpenResponse> {
    return dataOf(await this.#client.POST('/v1/client/first-open', { body }));
  }

  /** Sends customer events (sign-ups, purchases...). */
  async events(body: CustomerEventsRequest): Promise<CustomerEventsResponse> {
    return dataOf(await this.#client.POST('/v1/client/events', { body }));
  }
}

/** The query with the page's cursor (the first page keeps the query's own). */
const withCursor = <Q extends { cursor?: string }>(query: Q, cursor: string | undefined): Q =>
  cursor === undefined ? query : { ...query, cursor };

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

/**
 * The link service API: with a workspace server key (`apiKey`) every resource but `client`; with a
 * publishable key (`publishableKey`) `client.*`.
 */
export class LinkService {
  readonly links: LinksResource;
  readonly deepLinks: DeepLinksResource;
  readonly domains: DomainsResource;
  readonly analytics: AnalyticsResource;
  readonly auditLog: AuditLogResource;
  readonly client: ClientResource;
  readonly sessions: SessionsResource;

  constructor(options: LinkServiceOptions) {
    if (options.session && options.apiKey !== undefined)
      throw new TypeError('LinkService: session mode sends no key; pass either session or apiKey');
    const fetchImpl = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    const client = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      ...(options.session ? { credentials: 'same-origin' as const } : {}),
      headers: {
        ...options.headers,
        ...(options.session ? { 'x-requested-with': 'console' } : {}),
        ...(options.apiKey === undefined ? {} : { 'api-key': options.apiKey }),
        ...(options.publishableKey === undefined ? {} : { 'x-publishable-key': options.publishableKey }),
      },
      fetch: retryingFetch(fetchImpl, options.retry),
    });
    this.links = new LinksResource(client);
    this.deepLinks = new DeepLinksResource(client);
    this.domains = new DomainsResource(client);
    this.analytics = new AnalyticsResource(client);
    this.auditLog = new AuditLogResource(client);
    this.client = new ClientResource(client);
    this.sessions = new SessionsResource(client);
  }
}
