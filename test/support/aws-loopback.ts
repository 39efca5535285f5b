import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A loopback stand-in for an AWS JSON-protocol endpoint: records every request (what the SDK
 * client or our own caller put on the wire) and answers with `reply`. Started and closed with
 * the test file.
 */
export const awsLoopback = () => {
  const state = {
    seen: [] as SeenRequest[],
    reply: { status: 200, json: {} } as { status: number; headers?: Record<string, string>; json: unknown },
    endpoint: '',
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.seen.push({
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(state.reply.status, { 'content-type': 'application/x-amz-json-1.1', ...state.reply.headers });
      res.end(JSON.stringify(state.reply.json));
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  );
  return state;
};

export const loopbackCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
