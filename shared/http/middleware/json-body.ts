import type { MiddlewareObj } from '@middy/core';
import { AppError } from '@shared/errors/app-error';
import { header, type ApiContext, type ApiEvent, type ApiResult } from '@shared/http/api-types';
import { mediaType, readBodyText } from '@shared/http/request-body';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '@shared/util/json-depth';
import { findJsonSafetyProblem } from '@shared/util/json-safety';

const invalidJson = () => new AppError('invalid_json', 'The body is not valid JSON');

/**
 * v1 bodies are JSON. A body with another content type is 415 `unsupported_media_type`; one
 * that does not parse (or is not UTF-8) is 400 `invalid_json`; one holding a reserved key
 * (`constructor`, `__proto__`, ...), a lone surrogate or a number DynamoDB cannot store exactly
 * is 400 `invalid_request` naming the path (shared/util/json-safety.ts). No body leaves `jsonBody` unset.
 */
export const jsonBodyMiddleware = (): MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext> => ({
  before: (request) => {
    const text = readBodyText(request.event, invalidJson);
    if (text === undefined) return;
    const type = mediaType(header(request.event, 'content-type'));
    if (type !== 'application/json') {
      throw new AppError('unsupported_media_type', 'Request bodies must be sent as application/json');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw invalidJson();
    }
    if (jsonDepthExceeds(parsed, MAX_JSON_DEPTH)) {
      throw new AppError('invalid_request', `The body is nested deeper than ${MAX_JSON_DEPTH} levels`, [
        { path: '', message: `at most ${MAX_JSON_DEPTH} levels of nesting` },
      ]);
    }
    const problem = findJsonSafetyProblem(parsed);
    if (problem) {
      throw new AppError(
        'invalid_request',
        `The body cannot be stored as sent: ${problem.path || 'body'} ${problem.message}`,
        [problem],
      );
    }
    request.context.jsonBody = parsed;
  },
});
