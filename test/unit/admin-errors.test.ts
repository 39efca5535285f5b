/** The admin CLI's one error-to-sentence mapping (scripts/admin/errors.ts). */
import {
  ConditionalCheckFailedException,
  ResourceNotFoundException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { AdminError } from '@shared/admin/admin-error';
import { DomainFlowError } from '@shared/admin/distribution-tenants';
import { AppError } from '@shared/errors/app-error';
import { WebhookAdminError } from '@shared/outbound/manage-webhooks';
import { CliUsageError, describeFailure } from '../../scripts/admin/errors';
import { parseConfig, provideConfig } from '@shared/config/config';

const metadata = { $metadata: {} };

describe('describeFailure', () => {
  it('keeps the sentence and code of typed errors, ending each with a period', () => {
    expect(describeFailure(new AdminError('not_found', 'No workspace ws_x'))).toEqual({
      code: 'not_found',
      message: 'No workspace ws_x.',
    });
    expect(describeFailure(new DomainFlowError('go.example.com is already a link domain', 'conflict'))).toEqual({
      code: 'conflict',
      message: 'go.example.com is already a link domain.',
    });
    expect(describeFailure(new WebhookAdminError('No webhook endpoint wh_x'))).toEqual({
      code: 'not_found',
      message: 'No webhook endpoint wh_x.',
    });
    expect(describeFailure(new WebhookAdminError('--since must be an ISO 8601 date-time')).code).toBe('invalid_input');
  });

  it("adds an AppError's validation details, not the ones that repeat its message", () => {
    const invalid = new AppError('invalid_request', 'Invalid store URL', [
      { path: 'appStoreUrl', message: 'must be an absolute http(s) URL' },
    ]);
    expect(describeFailure(invalid)).toEqual({
      code: 'invalid_input',
      message: 'Invalid store URL; appStoreUrl: must be an absolute http(s) URL.',
    });
    const repeated = new AppError('invalid_request', 'The domain is not a short-link domain of this workspace', [
      { path: 'domain', message: 'is not a short-link domain of this workspace' },
    ]);
    expect(describeFailure(repeated).message).toBe('The domain is not a short-link domain of this workspace.');
    expect(describeFailure(new AppError('not_found', 'Link not found')).code).toBe('not_found');
  });

  it('never shows a DynamoDB exception raw', () => {
    const conditional = new ConditionalCheckFailedException({ message: 'The conditional request failed', ...metadata });
    const failure = describeFailure(conditional);
    expect(failure.code).toBe('conflict');
    expect(failure.message).not.toMatch(/conditional request failed/i);

    const cancelled = new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [ConditionalCheckFailed]',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }],
      ...metadata,
    });
    expect(describeFailure(cancelled)).toEqual(failure);

    // The CLI's configuration comes from its target (--table, else TABLE_NAME), not from the environment it is run in.
    provideConfig(parseConfig({ TABLE_NAME: 'links-table' }));
    try {
      const missing = describeFailure(
        new ResourceNotFoundException({ message: 'Cannot do operations on a non-existent table', ...metadata }),
      );
      expect(missing).toEqual({
        code: 'not_configured',
        message: expect.stringMatching(/^Table links-table does not exist: check TABLE_NAME/),
      });
    } finally {
      provideConfig(undefined);
    }
  });

  it('names credential, permission and connection failures', () => {
    const named = (name: string, message = 'raw') => Object.assign(new Error(message), { name, ...metadata });
    expect(
      describeFailure(Object.assign(new Error('Could not load credentials'), { name: 'CredentialsProviderError' })),
    ).toMatchObject({ code: 'not_configured', message: expect.stringMatching(/^No AWS credentials: set AWS_PROFILE/) });
    expect(describeFailure(named('ExpiredTokenException')).message).toMatch(/invalid or expired/);
    expect(describeFailure(named('AccessDeniedException', 'not authorized to perform: dynamodb:PutItem'))).toEqual({
      code: 'aws',
      message:
        'AWS denied the request: the credentials in use lack a permission the command needs (not authorized to perform: dynamodb:PutItem).',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), {
      code: 'ECONNREFUSED',
      address: '127.0.0.1',
      port: 8000,
    });
    provideConfig(parseConfig({ TABLE_NAME: 'links-table', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }));
    try {
      expect(describeFailure(refused).message).toBe(
        'Cannot reach DynamoDB at 127.0.0.1:8000 (ECONNREFUSED): is the local stack running (`npm start`), or is DYNAMODB_ENDPOINT right?',
      );
    } finally {
      provideConfig(undefined);
    }
  });

  it('says which file is missing, and calls anything else unexpected', () => {
    const enoent = Object.assign(new Error("ENOENT: no such file or directory, open 'links.csv'"), {
      code: 'ENOENT',
      path: 'links.csv',
    });
    expect(describeFailure(enoent)).toEqual({ code: 'not_found', message: 'No such file or folder: links.csv.' });
    expect(describeFailure(new Error('boom'))).toEqual({
      code: 'unexpected',
      message: 'Unexpected error: boom (run with LOG_LEVEL=debug for details).',
    });
    expect(describeFailure(Object.assign(new Error('Rate exceeded'), { name: 'SomethingNew', ...metadata }))).toEqual({
      code: 'unexpected',
      message: 'Unexpected error from AWS (SomethingNew): Rate exceeded (run with LOG_LEVEL=debug for details).',
    });
  });

  it("turns commander's refusals into a sentence with where to look", () => {
    expect(
      describeFailure(
        new CliUsageError("error: unknown option '--verbos'\n(Did you mean --verbose?)", 'show-workspace'),
      ),
    ).toEqual({
      code: 'usage',
      message: "Unknown option '--verbos' (did you mean --verbose?). See `npm run -s admin -- show-workspace --help`.",
    });
  });
});
