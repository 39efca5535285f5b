import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postWebhook } from '@shared/outbound/webhook-post';

/**
 * A receiver that answers a 200, one byte every `everyMs`: each byte resets an idle timeout, so
 * only a total deadline ends the delivery before the answer is complete.
 */
const servers: Server[] = [];
const sockets = new Set<Socket>();
const trickling = async (answer: string, everyMs: number): Promise<URL> => {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', () => {
      let i = 0;
      const tick = setInterval(() => {
        if (socket.destroyed || i >= answer.length) {
          clearInterval(tick);
          if (!socket.destroyed) socket.end();
          return;
        }
        socket.write(answer[i++]!);
      }, everyMs);
      socket.on('close', () => {
        clearInterval(tick);
      });
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}/hooks`);
};
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const OK = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok';

describe('postWebhook: one deadline for the whole exchange', () => {
  it('a receiver trickling its status line is cut at the deadline, not answered 200 later', async () => {
    // 60 bytes at 80 ms each: the 200 would be complete after about 5 s.
    const url = await trickling(OK, 80);
    await expect(postWebhook(url, {}, '{}', 500)).rejects.toThrow(/No complete answer within 500 ms/);
  });

  it('a 200 whose body trickles past the deadline is a failure too', async () => {
    const body = 'x'.repeat(100);
    const url = await trickling(
      `HTTP/1.1 200 OK\r\ncontent-length: ${String(body.length)}\r\nconnection: close\r\n\r\n${body}`,
      10,
    );
    // The headers arrive within about 0.6 s, the body about 1 s later.
    await expect(postWebhook(url, {}, '{}', 1_000)).rejects.toThrow(/No complete answer/);
  });

  it('an answer complete within the deadline is its status', async () => {
    const url = await trickling(OK, 0);
    await expect(postWebhook(url, {}, '{}', 5_000)).resolves.toBe(200);
  });
});
