import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '@shared/http/api-types';
import { MultipartFormError, parseMultipartForm } from '@shared/http/multipart-form';
import { multipartText } from '@test/support/legacy-client';

const event = (body: string | Buffer, contentType: string | undefined, base64 = true): ApiEvent =>
  ({
    headers: contentType === undefined ? {} : { 'Content-Type': contentType },
    body: base64 ? Buffer.from(body).toString('base64') : body.toString(),
    isBase64Encoded: base64,
  }) as unknown as ApiEvent;

const TYPE = 'multipart/form-data; boundary=----b0undary';
const form = (parts: Array<{ name: string; value: string; filename?: string }>, close = true) =>
  multipartText('----b0undary', parts, close);

const rejects = async (promise: Promise<unknown>, message: string | RegExp, status = 400) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MultipartFormError);
  expect((error as MultipartFormError).message).toMatch(message);
  expect((error as MultipartFormError).status).toBe(status);
};

describe('parseMultipartForm', () => {
  it('refuses field bytes that are not valid UTF-8, naming the field, and keeps a sent U+FFFD', async () => {
    const text = form([
      { name: 'title', value: 'ok' },
      { name: 'url', value: 'https://example.com/@@' },
    ]);
    const bad = Buffer.from(text.replace('@@', '\u0000\u0001'), 'utf8');
    const at = bad.indexOf(0);
    bad[at] = 0xff;
    bad[at + 1] = 0xfe;
    await rejects(parseMultipartForm(event(bad, TYPE)), 'The form field url is not valid UTF-8');
    const replacement = form([{ name: 'title', value: 'a\ufffdb' }]);
    expect((await parseMultipartForm(event(replacement, TYPE))).get('title')).toBe('a\ufffdb');
  });

  it('reads text fields from a base64 body (local server, API Gateway binary) and a plain one', async () => {
    const body = form([
      { name: 'url', value: 'https://example.com/ä' },
      { name: 'tags', value: '["a","b"]' },
      { name: 'empty', value: '' },
    ]);
    for (const base64 of [true, false]) {
      const fields = await parseMultipartForm(event(body, TYPE, base64));
      expect(Object.fromEntries(fields)).toEqual({ url: 'https://example.com/ä', tags: '["a","b"]', empty: '' });
    }
  });

  it('reads a body built by the platform FormData', async () => {
    const fd = new FormData();
    fd.append('title', 'Grüße\r\nzwei Zeilen');
    fd.append('objects', '{"a":{"b":[1]}}');
    const request = new Request('http://x', { method: 'POST', body: fd });
    const bytes = Buffer.from(await request.arrayBuffer());
    const fields = await parseMultipartForm(event(bytes, request.headers.get('content-type')!));
    expect(fields.get('title')).toBe('Grüße\r\nzwei Zeilen');
    expect(fields.get('objects')).toBe('{"a":{"b":[1]}}');
  });

  it('refuses other content types and a missing content type', async () => {
    await rejects(parseMultipartForm(event('{}', 'application/json')), 'Content-Type must be multipart/form-data');
    await rejects(
      parseMultipartForm(event('a=b', 'application/x-www-form-urlencoded')),
      'Content-Type must be multipart/form-data',
    );
    await rejects(parseMultipartForm(event('x', undefined)), 'Content-Type must be multipart/form-data');
  });

  it('refuses a missing boundary, an unterminated body and an empty body', async () => {
    await rejects(parseMultipartForm(event(form([{ name: 'a', value: 'b' }]), 'multipart/form-data')), /no boundary/);
    await rejects(parseMultipartForm(event(form([{ name: 'a', value: 'b' }], false), TYPE)), /malformed/);
    await rejects(parseMultipartForm({ headers: { 'content-type': TYPE } } as unknown as ApiEvent), /malformed/);
  });

  it('refuses file parts, repeated fields, too many parts, long fields and large bodies', async () => {
    await rejects(
      parseMultipartForm(event(form([{ name: 'doc', value: 'x', filename: 'a.txt' }]), TYPE)),
      'File uploads are not accepted (part doc)',
    );
    await rejects(
      parseMultipartForm(
        event(
          form([
            { name: 'a', value: '1' },
            { name: 'a', value: '2' },
          ]),
          TYPE,
        ),
      ),
      'The form field a is sent more than once',
    );
    const limits = { maxBodyBytes: 2000, maxParts: 3, maxFieldBytes: 10 };
    const many = form(Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, value: 'v' })));
    await rejects(parseMultipartForm(event(many, TYPE), limits), /more than 3/);
    await rejects(
      parseMultipartForm(event(form([{ name: 'a', value: 'x'.repeat(11) }]), TYPE), limits),
      'The form field a is longer than 10 bytes',
    );
    await rejects(
      parseMultipartForm(event(form([{ name: 'a', value: 'é'.repeat(6) }]), TYPE), limits),
      'The form field a is longer than 10 bytes',
    );
    await rejects(
      parseMultipartForm(event(form([{ name: 'a', value: 'x'.repeat(3000) }]), TYPE), limits),
      /larger than 2000 bytes/,
      413,
    );
  });

  it('accepts exactly the limits', async () => {
    const limits = { maxBodyBytes: 10_000, maxParts: 3, maxFieldBytes: 10 };
    const fields = await parseMultipartForm(
      event(
        form([
          { name: 'a', value: 'x'.repeat(10) },
          { name: 'b', value: '' },
          { name: 'c', value: 'y' },
        ]),
        TYPE,
      ),
      limits,
    );
    expect(fields.size).toBe(3);
  });
});
