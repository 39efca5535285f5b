import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { publicOnlyLookup } from './webhook-url';

export const DELIVERY_TIMEOUT_MS = 10_000;
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * POSTs one delivery and answers the status. Connects only to public addresses (the lookup
 * refuses others; loopback only where the local stack allows it), follows no redirect, reads at
 * most 64 KiB of the answer. The whole exchange (lookup, connect, sending the body, the answer's
 * headers and its body) ends at one deadline, `timeoutMs` after the call: a receiver that
 * trickles bytes cannot hold a delivery past it (the socket's own timeout is an idle timeout,
 * reset by every byte). A delivery cut at the deadline is a failure, whatever status had arrived.
 */
export const postWebhook = (
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<number> =>
  new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: { status: number } | { error: Error }) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if ('error' in outcome) reject(outcome.error);
      else resolve(outcome.status);
    };
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
      },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => {
          settle({ status: res.statusCode ?? 0 });
        });
        res.on('error', () => {
          settle({ status: res.statusCode ?? 0 });
        });
      },
    );
    const deadline = setTimeout(() => {
      const error = new Error(`No complete answer within ${String(timeoutMs)} ms`);
      settle({ error });
      req.destroy(error);
    }, timeoutMs);
    req.on('error', (error) => {
      settle({ error });
    });
    req.end(body);
  });
