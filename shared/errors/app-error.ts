import { errorStatus, type ErrorCode } from './error-code';

export interface ValidationIssue {
  path: string;
  message: string;
}

/** The one typed error domain code throws; `onError` turns it into the v1 envelope. */
export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = errorStatus[code];
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
