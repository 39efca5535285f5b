/**
 * The typed error of provisioning and operating the service outside the HTTP API (the admin CLI
 * and the functions it calls): a machine code and one sentence a person can act on. The CLI
 * prints the sentence (or, with --json, `{"error":{"code","message"}}`) and exits 1.
 */
export type AdminErrorCode =
  /** The command line itself is wrong: unknown command or option, missing argument. */
  | 'usage'
  /** A value given is not acceptable (a malformed URL, number, date, domain name...). */
  | 'invalid_input'
  /** Something named does not exist: a workspace, key, domain, endpoint, file. */
  | 'not_found'
  /** The change collides with what is there (a domain taken, a removed domain). */
  | 'conflict'
  /** The environment names nothing to work on, or the wrong thing (no stack, a missing table). */
  | 'not_configured'
  /** Part of the work is done and the rest was refused for now: running the command again finishes it. */
  | 'incomplete'
  /** AWS refused the request (credentials, permissions, throttling). */
  | 'aws'
  /** Anything else: a bug or an outage; LOG_LEVEL=debug shows the details. */
  | 'unexpected';

export class AdminError extends Error {
  override name = 'AdminError';
  constructor(
    readonly code: AdminErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const invalidInput = (message: string) => new AdminError('invalid_input', message);
export const notFound = (message: string) => new AdminError('not_found', message);
