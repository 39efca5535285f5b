/**
 * The front door's proof: CloudFront adds this header (a secret from Secrets Manager) to every
 * origin request. A function URL is public (auth NONE), so the edge answers 403 to a request
 * without it, and trusts the CDN's viewer headers (x-forwarded-host, CloudFront-Viewer-Country,
 * CloudFront-Viewer-Address) only on a request that carries it. The console's distribution adds
 * it to the service API's requests too (shared/http/middleware/console-origin.ts). In a module of
 * its own so a handler can look for the header without loading the Secrets Manager client.
 */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';
