import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { publicOnlyLookup } from './webhook-url';

export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs one delivery and answers the status. Connects only to public addresses (the lookup
 * refuses others; loopback only where the local stack allows it), follows no redirect, reads at
 * most 64 KiB of the answer, gives up after 10 s.
 */
export const postWebhook = (
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<number> =>
  new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'linkservice-webhooks/1',
        },
        lookup: publicOnlyLookup,
        timeout: timeoutMs,
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => {
          resolve(res.statusCode ?? 0);
        });
        res.on('error', () => {
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`No answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
