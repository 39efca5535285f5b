/**
 * The admin CLI's one mapping from a failure to what the operator reads: a code and one sentence
 * they can act on. Typed errors (AdminError and the domain errors of the functions the commands
 * call) keep their sentence; the AWS SDK's errors (ConditionalCheckFailedException,
 * ResourceNotFoundException, credential and network failures...) are never shown raw; anything
 * else is "Unexpected error: ... (run with LOG_LEVEL=debug for details)". Every failure exits 1.
 *
 * Without --json the sentence goes to stderr as `admin <command>: <sentence>`; with --json
 * stderr gets one line `{"error":{"code","message"}}` instead. stdout only ever carries results.
 */
import {
  ConditionalCheckFailedException,
  ResourceNotFoundException as DynamoDbResourceNotFoundException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { AdminError, type AdminErrorCode } from '@shared/admin/admin-error';
import { isAppError, type AppError } from '@shared/errors/app-error';
import { WebhookAdminError } from '@shared/outbound/manage-webhooks';
import { getConfig, type Config } from '@shared/config/config';

export const FAILURE_EXIT = 1;

export interface CliFailure {
  code: AdminErrorCode;
  message: string;
}

/** A command line commander refused (unknown option, missing argument...), with the command it was for. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
  constructor(
    message: string,
    readonly commandPath: string,
  ) {
    super(message);
  }
}

/** Ends the text as a sentence (a period unless it already ends with . ? or !). */
export const sentence = (text: string): string => {
  const trimmed = text.trim().replace(/\s*\n\s*/g, ' ');
  return /[.?!]$/.test(trimmed) ? trimmed : `${trimmed}.`;
};

/** commander's `error: unknown option '--x'\n(Did you mean --y?)` as a sentence, with where to look. */
const usageSentence = (error: CliUsageError): string => {
  const text = error.message
    .replace(/^error:\s*/, '')
    .replace(/\(Did you mean/, '(did you mean')
    .trim();
  const help = ['npm run -s admin --', error.commandPath, '--help'].filter(Boolean).join(' ');
  return `${sentence(text.charAt(0).toUpperCase() + text.slice(1))} See \`${help}\`.`;
};

const APP_ERROR_CODES: Partial<Record<AppError['code'], AdminErrorCode>> = {
  not_found: 'not_found',
  slug_taken: 'conflict',
  idempotency_key_reused: 'conflict',
};

/** The API's typed error (validation details included) in the CLI's terms. */
export const fromAppError = (error: AppError, context?: string): AdminError => {
  const details = Array.isArray(error.details) ? (error.details as Array<{ path?: unknown; message?: unknown }>) : [];
  const issues = details
    // An issue that only repeats the error's own message adds nothing.
    .filter((d) => !error.message.toLowerCase().includes(String(d.message).toLowerCase()))
    .map((d) => `${String(d.path)}: ${String(d.message)}`);
  const message = [error.message + (context ? ` (${context})` : ''), ...issues].join('; ');
  const code = APP_ERROR_CODES[error.code] ?? (error.status >= 500 ? 'unexpected' : 'invalid_input');
  return new AdminError(code, message);
};

const errorCode = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
};

/** True when a DynamoDB write was refused by its condition (the item is missing or changed). */
export const isConditionalCheckFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof TransactionCanceledException &&
    (error.CancellationReasons ?? []).some((r) => r.Code === 'ConditionalCheckFailed'));

const CREDENTIALS_REFUSED = new Set([
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'ExpiredTokenException',
]);
const ACCESS_DENIED = new Set(['AccessDeniedException', 'AccessDenied', 'UnauthorizedOperation']);
const THROTTLED = new Set([
  'ThrottlingException',
  'Throttling',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'SlowDown',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN']);

/** Where a refused connection went: the address or host name in the error (or its first cause). */
const endpointOf = (error: unknown): string | undefined => {
  const { address, port, hostname, errors } = error as {
    address?: unknown;
    port?: unknown;
    hostname?: unknown;
    errors?: unknown;
  };
  if (typeof address === 'string') return typeof port === 'number' ? `${address}:${port}` : address;
  if (typeof hostname === 'string') return hostname;
  if (Array.isArray(errors) && errors.length > 0) return endpointOf(errors[0]);
  return undefined;
};

/** The run's configuration (its target's, admin-target.ts), if there is a valid one, for the messages. */
const configured = (): Config | undefined => {
  try {
    return getConfig();
  } catch {
    return undefined;
  }
};

/** A connection that failed: the local stack's DynamoDB is down, or the network / region is wrong. */
const unreachable = (error: unknown, code: string): string => {
  const local = configured()?.DYNAMODB_ENDPOINT;
  const where = endpointOf(error) ?? local ?? 'AWS';
  return local
    ? `Cannot reach DynamoDB at ${where} (${code}): is the local stack running (\`npm start\`), or is DYNAMODB_ENDPOINT right?`
    : `Cannot reach ${where} (${code}): check the network and AWS_REGION`;
};

const awsFailure = (error: Error): CliFailure | undefined => {
  const fail = (code: AdminErrorCode, message: string): CliFailure => ({ code, message: sentence(message) });
  if (isConditionalCheckFailure(error))
    return fail(
      'conflict',
      'A record the command had to change does not exist or changed meanwhile; check the id you gave and run the command again',
    );
  if (error instanceof TransactionCanceledException)
    return fail('incomplete', 'DynamoDB cancelled the write because of a concurrent change; run the command again');
  if (error instanceof DynamoDbResourceNotFoundException)
    return fail(
      'not_configured',
      `Table ${configured()?.TABLE_NAME || '(TABLE_NAME unset)'} does not exist: check TABLE_NAME and AWS_REGION (the stack output TableName), or start the local stack with \`npm start\``,
    );
  const name = error.name;
  if (name === 'ResourceNotFoundException')
    return fail(
      'not_configured',
      'An AWS resource the command needs does not exist: check the stack outputs set in the environment (EVENTS_STREAM_NAME, queue URLs, LAKE_BUCKET)',
    );
  if (name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue')
    return fail(
      'not_configured',
      'The SQS queue does not exist: check --queue-url (or EVENTS_SPOOL_QUEUE_URL / EVENTS_SPOOL_DLQ_URL)',
    );
  if (name === 'NoSuchBucket')
    return fail(
      'not_configured',
      'The S3 bucket does not exist: check LAKE_BUCKET (the stack output EventLakeBucketName)',
    );
  if (name === 'CredentialsProviderError')
    return fail(
      'not_configured',
      'No AWS credentials: set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or start the local stack with `npm start`',
    );
  if (CREDENTIALS_REFUSED.has(name))
    return fail('aws', `AWS refused the credentials (${name}): they are invalid or expired; sign in again`);
  if (ACCESS_DENIED.has(name))
    return fail(
      'aws',
      `AWS denied the request: the credentials in use lack a permission the command needs (${sentence(error.message).slice(0, -1)})`,
    );
  if (THROTTLED.has(name)) return fail('aws', 'AWS throttled the requests; run the command again in a minute');
  if (name === 'TimeoutError' || name === 'RequestTimeout')
    return fail(
      'aws',
      'A request to AWS timed out; check the network (or that the local stack is running) and run the command again',
    );
  const code = errorCode(error);
  if (code && NETWORK_CODES.has(code)) return fail('not_configured', unreachable(error, code));
  if ('$metadata' in error)
    return fail(
      'unexpected',
      `Unexpected error from AWS (${name}): ${sentence(error.message).slice(0, -1)} (run with LOG_LEVEL=debug for details)`,
    );
  return undefined;
};

/** Node's file-system errors (ENOENT...) name the path; say what is wrong with it. */
const fileFailure = (error: Error): CliFailure | undefined => {
  const file = (error as NodeJS.ErrnoException).path;
  if (typeof file !== 'string') return undefined;
  switch (errorCode(error)) {
    case 'ENOENT':
      return { code: 'not_found', message: `No such file or folder: ${file}.` };
    case 'EACCES':
    case 'EPERM':
      return { code: 'invalid_input', message: `Permission denied: ${file}.` };
    case 'EISDIR':
      return { code: 'invalid_input', message: `${file} is a folder; give a file.` };
    case 'ENOTDIR':
      return { code: 'invalid_input', message: `${file}: part of that path is a file, not a folder.` };
    default:
      return undefined;
  }
};

/** The one mapping: any failure as a code and a sentence. */
export const describeFailure = (error: unknown): CliFailure => {
  if (error instanceof CliUsageError) return { code: 'usage', message: usageSentence(error) };
  if (error instanceof AdminError) return { code: error.code, message: sentence(error.message) };
  if (error instanceof WebhookAdminError) {
    const missing = /^No (workspace|webhook endpoint) /.test(error.message);
    return { code: missing ? 'not_found' : 'invalid_input', message: sentence(error.message) };
  }
  if (isAppError(error)) {
    const failure = fromAppError(error);
    return { code: failure.code, message: sentence(failure.message) };
  }
  if (error instanceof Error) {
    const known = awsFailure(error) ?? fileFailure(error);
    if (known) return known;
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    code: 'unexpected',
    message: `Unexpected error: ${sentence(message || 'no message').slice(0, -1)} (run with LOG_LEVEL=debug for details).`,
  };
};

const debugging = () => ['debug', 'trace'].includes((process.env.LOG_LEVEL ?? '').toLowerCase());

/**
 * Prints the failure on stderr (one sentence, or with `json` one JSON object) and returns the
 * exit code. LOG_LEVEL=debug adds the error's stack (and an AWS error's request metadata).
 */
export const reportFailure = (error: unknown, options: { json: boolean; commandPath: string }): number => {
  const failure = describeFailure(error);
  const commandPath = error instanceof CliUsageError ? error.commandPath : options.commandPath;
  if (options.json) process.stderr.write(`${JSON.stringify({ error: failure })}\n`);
  else process.stderr.write(`admin${commandPath ? ` ${commandPath}` : ''}: ${failure.message}\n`);
  if (debugging() && error instanceof Error) {
    const metadata = (error as { $metadata?: unknown }).$metadata;
    process.stderr.write(`${error.stack ?? String(error)}\n`);
    if (metadata) process.stderr.write(`AWS request: ${JSON.stringify(metadata)}\n`);
  }
  return FAILURE_EXIT;
};
