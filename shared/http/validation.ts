import type { $ZodError, $ZodType, output } from 'zod/v4/core';
import { AppError, type ValidationIssue } from '@shared/errors/app-error';
import * as z from '@shared/schemas/zod-mini';

export const toIssues = (error: $ZodError): ValidationIssue[] =>
  error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));

/** Parses at the edge; a failure is 400 `invalid_request` naming every bad field. */
export const parseOrThrow = <S extends $ZodType>(schema: S, value: unknown, what: string): output<S> => {
  const result = z.safeParse(schema, value);
  if (!result.success) throw new AppError('invalid_request', `The ${what} is invalid`, toIssues(result.error));
  return result.data;
};
