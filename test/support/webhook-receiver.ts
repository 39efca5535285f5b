import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * A loopback webhook receiver: records every delivery and answers with `respond(n)` (n = how
 * many deliveries it got so far, 1-based); 200 by default.
 */
export const startWebhookReceiver = async (respond: (n: number) => number = () => 200) => {
  const received: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = respond(received.length + 1);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), status });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(status < 300 ? 'ok' : 'no');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    /** Parsed bodies of the deliveries it answered 2xx (or all with `all`). */
    events: (all = false) =>
      received
        .filter((r) => all || r.status < 300)
        .map((r) => JSON.parse(r.body) as { id: string; type: string; workspaceId: string; data: any }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
};

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
