import { Readable } from 'node:stream';
import { AthenaClient } from '@aws-sdk/client-athena';
import type { HttpRequest } from '@smithy/types';

/** One captured Athena API call: the operation (X-Amz-Target) and its JSON body as sent. */
export interface AthenaCall {
  operation: string;
  input: Record<string, any>;
}

export type AthenaResponder = (call: AthenaCall, calls: AthenaCall[]) => { status?: number; body: unknown };

const bodyText = (body: unknown): string =>
  body === undefined
    ? '{}'
    : body instanceof Uint8Array
      ? new TextDecoder().decode(Uint8Array.prototype.slice.call(body))
      : typeof body === 'string'
        ? body
        : JSON.stringify(body);

/**
 * The official Athena client with its HTTP handler replaced: requests go through the client's
 * real serializers and SigV4 signer (what AWS would receive; test/unit/athena-client.test.ts
 * checks the same over a loopback server), responses through its parser and error naming. No
 * network.
 */
export const fakeAthenaApi = (respond: AthenaResponder) => {
  const calls: AthenaCall[] = [];
  const athena = new AthenaClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 1,
    requestHandler: {
      handle: (request: HttpRequest) => {
        const target = request.headers['x-amz-target'] ?? '';
        const call = { operation: target.replace(/^AmazonAthena\./, ''), input: JSON.parse(bodyText(request.body)) };
        calls.push(call);
        const reply = respond(call, calls);
        const status = reply.status ?? 200;
        return Promise.resolve({
          // The shape of @smithy's HttpResponse.
          response: {
            statusCode: status,
            headers: { 'content-type': 'application/x-amz-json-1.1' },
            body: Readable.from([Buffer.from(JSON.stringify(reply.body))]),
          },
        });
      },
    },
  });
  return { athena, calls };
};

/** GetQueryResults pages for `rows` (all text), header row first, `pageSize` data rows per page. */
export const resultPages = (columns: string[], rows: Array<Array<string | null>>, pageSize: number) => {
  const header = { Data: columns.map((c) => ({ VarCharValue: c })) };
  const data = rows.map((r) => ({ Data: r.map((v) => (v === null ? {} : { VarCharValue: v })) }));
  const all = [header, ...data];
  const pages: unknown[] = [];
  for (let i = 0; i < all.length; i += pageSize) {
    pages.push({
      ResultSet: {
        Rows: all.slice(i, i + pageSize),
        ResultSetMetadata: { ColumnInfo: columns.map((c) => ({ Name: c, Type: 'varchar' })) },
      },
      NextToken: i + pageSize < all.length ? `page-${i + pageSize}` : undefined,
    });
  }
  return pages;
};
