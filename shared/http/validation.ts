import type { z } from 'zod';
import { AppError, type ValidationIssue } from '@shared/errors/app-error';

export const toIssues = (error: z.ZodError): ValidationIssue[] =>
  error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));

/** Parses at the edge; a failure is 400 `invalid_request` naming every bad field. */
export const parseOrThrow = <S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> => {
  const result = schema.safeParse(value);
  if (!result.success) throw new AppError('invalid_request', `The ${what} is invalid`, toIssues(result.error));
  return result.data;
};
