/** The URL when `value` is an absolute http:// or https:// URL with a host; otherwise undefined. */
export const parseHttpUrl = (value: string): URL | undefined => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 ? url : undefined;
};
