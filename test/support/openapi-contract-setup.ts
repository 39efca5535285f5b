import { afterAll, afterEach, expect } from 'vitest';
import { observeLocalAnswers } from '@shared/local/local-answers';
import { createContractChecker } from './openapi-contract';

/**
 * Runs before every end-to-end test file: every answer the service API of a local stack in this
 * process gives (whoever asked: the SDK, a test's own fetch, a browser) is checked against the
 * OpenAPI document (test/support/openapi-contract.ts). A test during which an answer broke the
 * contract fails after it, naming the request and what does not match; answers given outside a
 * test (beforeAll, afterAll) fail the file. Stacks in child processes (`npm start` in
 * local-start.e2e.test.ts) are not seen here.
 */
const checker = createContractChecker();
const violations: string[] = [];

observeLocalAnswers(({ api, method, path, result }) => {
  if (api !== 'service') return;
  const problems = checker.check({
    method,
    path,
    status: result.statusCode ?? 200,
    headers: result.headers ?? {},
    body: result.body,
    base64: result.isBase64Encoded ?? false,
  });
  if (problems.length === 0) return;
  const during = expect.getState().currentTestName ?? 'outside a test';
  violations.push(`${method} ${path} -> ${String(result.statusCode ?? 200)} (${during}): ${problems.join('; ')}`);
});

const failOnViolations = () => {
  if (violations.length === 0) return;
  const found = violations.splice(0);
  throw new Error(`Answers that break the OpenAPI document:\n${found.join('\n')}`);
};

afterEach(failOnViolations);
afterAll(failOnViolations);
