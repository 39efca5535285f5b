import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback SQS for tests: an HTTP server speaking the SQS JSON protocol (AWS JSON 1.0,
 * `X-Amz-Target: AmazonSQS.<Operation>`) for the operations the event spool and its replay use
 * (SendMessageBatch, ReceiveMessage, DeleteMessageBatch, GetQueueAttributes), with in-memory
 * queues. The official @aws-sdk/client-sqs talks to it unchanged (MD5 checksums included).
 */
export interface LocalSqs {
  endpoint: string;
  queueUrl(name: string): string;
  /** Messages currently in a queue (visible or in flight). */
  depth(name: string): number;
  stop(): Promise<void>;
}

interface Message {
  id: string;
  body: string;
  receipt?: string;
}

const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export const startLocalSqs = async (): Promise<LocalSqs> => {
  const queues = new Map<string, Message[]>();
  const queueOf = (url: string | undefined) => {
    const name = (url ?? '').split('/').pop() ?? '';
    if (!queues.has(name)) queues.set(name, []);
    return queues.get(name)!;
  };
  const operations: Record<string, (input: any) => unknown> = {
    SendMessageBatch: (input) => {
      const queue = queueOf(input.QueueUrl);
      const Successful = (input.Entries as Array<{ Id: string; MessageBody: string }>).map((e) => {
        const id = randomUUID();
        queue.push({ id, body: e.MessageBody });
        return { Id: e.Id, MessageId: id, MD5OfMessageBody: md5(e.MessageBody) };
      });
      return { Successful, Failed: [] };
    },
    ReceiveMessage: (input) => {
      const visible = queueOf(input.QueueUrl)
        .filter((m) => !m.receipt)
        .slice(0, Number(input.MaxNumberOfMessages ?? 1));
      for (const m of visible) m.receipt = randomUUID();
      return visible.length
        ? {
            Messages: visible.map((m) => ({
              MessageId: m.id,
              ReceiptHandle: m.receipt,
              Body: m.body,
              MD5OfBody: md5(m.body),
            })),
          }
        : {};
    },
    DeleteMessageBatch: (input) => {
      const queue = queueOf(input.QueueUrl);
      const Successful = (input.Entries as Array<{ Id: string; ReceiptHandle: string }>).map((e) => {
        const at = queue.findIndex((m) => m.receipt === e.ReceiptHandle);
        if (at >= 0) queue.splice(at, 1);
        return { Id: e.Id };
      });
      return { Successful, Failed: [] };
    },
    ChangeMessageVisibilityBatch: (input) => {
      const queue = queueOf(input.QueueUrl);
      for (const e of input.Entries as Array<{ ReceiptHandle: string }>) {
        const m = queue.find((x) => x.receipt === e.ReceiptHandle);
        if (m) m.receipt = undefined;
      }
      return { Successful: (input.Entries as Array<{ Id: string }>).map((e) => ({ Id: e.Id })), Failed: [] };
    },
    GetQueueAttributes: (input) => ({
      Attributes: { ApproximateNumberOfMessages: String(queueOf(input.QueueUrl).length) },
    }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const operation = String(req.headers['x-amz-target'] ?? '').replace('AmazonSQS.', '');
      const handler = operations[operation];
      res.setHeader('content-type', 'application/x-amz-json-1.0');
      if (!handler) {
        res
          .writeHead(400)
          .end(JSON.stringify({ __type: 'com.amazonaws.sqs#UnsupportedOperation', message: operation }));
        return;
      }
      res.writeHead(200).end(JSON.stringify(handler(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'))));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    queueUrl: (name) => `${endpoint}/000000000000/${name}`,
    depth: (name) => queues.get(name)?.length ?? 0,
    stop: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
};
