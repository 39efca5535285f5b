/**
 * The shortLink the local stack answers with, written out independently of shortLinkOf: plain
 * HTTP on the port its edge listens on (`edgeUrl`), so the link can be clicked locally. Deployed,
 * the same link is `https://{domain}/{key}`.
 */
export const localShortLink = (edgeUrl: string, domain: string, key: string): string =>
  `http://${domain}:${new URL(edgeUrl).port}/${key}`;
