/**
 * A URL as it may travel in an HTTP header (`Location`): the WHATWG serialization, which
 * percent-encodes non-ASCII path, query and fragment characters and turns an IDN host into
 * punycode. A raw `https://example.com/中文` is not a valid header value (Node refuses it with
 * ERR_INVALID_CHAR; API Gateway and browsers mangle it). A string that does not parse as a URL
 * (never expected: destinations are validated) is percent-encoded as a whole.
 */
export const headerUrl = (url: string): string => {
  try {
    return new URL(url).href;
  } catch {
    return encodeURI(url);
  }
};
