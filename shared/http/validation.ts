import type { $ZodError, $ZodType, output } from 'zod/v4/core';
import { AppError, type ValidationIssue } from '@shared/errors/app-error';
import * as z from '@shared/schemas/zod-mini';

/** Fields whose paths index their lists with brackets (`rules[2].conditions[0].value`); others keep `events.1.linkId`. */
const BRACKETED = new Set(['rules', 'variants']);

/** An issue's path as text: segments joined with `.`, list indexes inside `rules` / `variants` as `[n]`. */
export const pathOf = (path: readonly PropertyKey[]): string => {
  let text = '';
  let bracketed = false;
  for (const segment of path) {
    if (bracketed && typeof segment === 'number') text += `[${String(segment)}]`;
    else text += `${text === '' ? '' : '.'}${String(segment)}`;
    if (typeof segment === 'string' && BRACKETED.has(segment)) bracketed = true;
  }
  return text;
};

export const toIssues = (error: $ZodError): ValidationIssue[] =>
  error.issues.map((issue) => ({
    path: pathOf(issue.path),
    message: issue.message,
  }));

/** Parses at the edge; a failure is 400 `invalid_request` naming every bad field. */
export const parseOrThrow = <S extends $ZodType>(schema: S, value: unknown, what: string): output<S> => {
  const result = z.safeParse(schema, value);
  if (!result.success) throw new AppError('invalid_request', `The ${what} is invalid`, toIssues(result.error));
  return result.data;
};
