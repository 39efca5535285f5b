/** The body field a legacy error uses (the legacy contract: some errors say `msg`, some say `error`). */
export type LegacyErrorField = 'msg' | 'error';

/**
 * An error of the legacy endpoints: answered as `{success:false, [field]: message}` with this
 * status (no v1 envelope). The one typed error legacy code throws; see `legacyErrors`.
 */
export class LegacyError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field: LegacyErrorField = 'msg',
  ) {
    super(message);
    this.name = 'LegacyError';
  }
}

export const isLegacyError = (e: unknown): e is LegacyError => e instanceof LegacyError;

/** Every legacy error answer, by the legacy contract's case (or documented decision) it implements. */
export const legacyErrors = {
  /** POST deeplink (and POST link create, by analogy): no api-key header. */
  apiKeyRequired: () => new LegacyError(400, 'API key is required'),
  /** GET deeplink (and GET link, by analogy): no api-key header. */
  headerKeyRequired: () => new LegacyError(400, 'Header api-key is required', 'error'),
  /** POST/GET deeplink: unknown, revoked or other-kind key. */
  appNotFound: () => new LegacyError(404, 'Deep link app not found, please check the API key'),
  /** POST link create (and GET link): unknown, revoked or other-kind key. */
  workspaceNotFound: () => new LegacyError(404, 'No workspace found, please check the API key'),
  /** Both creates: the slug is taken on that domain. Status 200, as the legacy contract says. */
  slugExists: () => new LegacyError(200, 'slug already exists'),
  /** GET deeplink / GET link: no shortLink query parameter. */
  shortLinkRequired: () => new LegacyError(400, 'shortLink is required', 'error'),
  /** GET deeplink / GET link: shortLink is not an absolute http(s) URL. */
  shortLinkInvalid: () => new LegacyError(400, 'shortLink must be the full short-link URL', 'error'),
  /** GET deeplink / GET link: no such link for this key. */
  linkNotFound: () => new LegacyError(404, 'requested link could not be found'),
  /** Form problems: not multipart, malformed, unparseable objects/tags, invalid fields. */
  invalidForm: (message: string) => new LegacyError(400, message),
  /** The workspace has no primary verified short-link domain for legacy creates. */
  noPrimaryDomain: () => new LegacyError(400, 'The workspace has no verified primary short-link domain'),
  internal: () => new LegacyError(500, 'Internal server error'),
};
