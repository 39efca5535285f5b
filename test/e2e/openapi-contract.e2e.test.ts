import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observeLocalAnswers, type LocalAnswer } from '@shared/local/local-answers';
import { http } from '@test/support/http-client';
import { createContractChecker } from '@test/support/openapi-contract';
import { startTestStack, type TestStack } from '@test/support/test-stack';

/*
 * The contract check of the end-to-end suite (test/support/openapi-contract-setup.ts) sees the
 * local stack's answers: each request of a test reaches it, as the stack answered it, and the
 * checker finds an answer that strays from the document.
 */

let t: TestStack;
const answers: LocalAnswer[] = [];
let stopObserving: () => void;

beforeAll(async () => {
  t = await startTestStack();
  stopObserving = observeLocalAnswers((answer) => {
    if (answer.api === 'service') answers.push(answer);
  });
});
afterAll(async () => {
  stopObserving();
  await t.stop();
});

describe('OpenAPI contract check over the local stack', () => {
  it('sees every answer of the service API, and conforming ones pass while a stray field fails', async () => {
    const auth = { 'api-key': t.tenantA.serverKey };
    const created = await http(t.baseUrl, 'POST', '/v1/links', {
      headers: auth,
      json: { url: 'https://example.com/contract', domain: t.tenantA.domain },
    });
    expect(created.status).toBe(201);
    const id = (created.body as { data: { id: string } }).data.id;
    await http(t.baseUrl, 'GET', `/v1/links/${id}`, { headers: auth });
    await http(t.baseUrl, 'GET', '/v1/links/lnk_missing', { headers: auth });
    await http(t.baseUrl, 'GET', '/v1/nowhere', { headers: auth });
    expect(answers.map((a) => `${a.method} ${a.path} ${String(a.result.statusCode)}`)).toEqual([
      'POST /v1/links 201',
      `GET /v1/links/${id} 200`,
      'GET /v1/links/lnk_missing 404',
      'GET /v1/nowhere 404',
    ]);

    const checker = createContractChecker();
    const asAnswer = (a: LocalAnswer) => ({
      method: a.method,
      path: a.path,
      status: a.result.statusCode ?? 200,
      headers: a.result.headers ?? {},
      body: a.result.body,
    });
    expect(answers.flatMap((a) => checker.check(asAnswer(a)))).toEqual([]);
    const [first] = answers;
    if (!first) throw new Error('no answer seen');
    const body = JSON.parse(first.result.body ?? '') as { data: Record<string, unknown> };
    const stray = { ...asAnswer(first), body: JSON.stringify({ ...body, data: { ...body.data, internal: 1 } }) };
    expect(checker.check(stray).join()).toMatch(/links-create 201: \/data must NOT have additional properties/);
  });
});
