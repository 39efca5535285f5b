import { AppError } from '@shared/errors/app-error';
import type { ApiReply, ApiResult } from './api-types';

export const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' };

export const successResult = (reply: ApiReply, requestId: string): ApiResult =>
  reply.status === 204
    ? // No Content: no body, and so no Content-Type.
      {
        statusCode: 204,
        headers: { 'Cache-Control': 'no-store', ...reply.headers },
        ...(reply.cookies?.length ? { cookies: reply.cookies } : {}),
      }
    : reply.raw
      ? {
          statusCode: reply.status,
          headers: { 'Content-Type': reply.raw.contentType, 'X-Content-Type-Options': 'nosniff', ...reply.headers },
          body: reply.raw.body,
          isBase64Encoded: reply.raw.isBase64Encoded,
        }
      : jsonSuccessResult(reply, requestId);

const jsonSuccessResult = (reply: ApiReply, requestId: string): ApiResult => ({
  statusCode: reply.status,
  headers: { ...JSON_HEADERS, ...reply.headers },
  ...(reply.cookies?.length ? { cookies: reply.cookies } : {}),
  body: JSON.stringify({
    success: true,
    ...(reply.data !== undefined ? { data: reply.data } : {}),
    ...(reply.pagination ? { pagination: reply.pagination } : {}),
    requestId,
  }),
});

export const errorResult = (error: AppError, requestId: string): ApiResult => ({
  statusCode: error.status,
  headers: { ...JSON_HEADERS, ...error.headers },
  body: JSON.stringify({
    success: false,
    error: {
      code: error.code,
      message: error.message,
      ...(error.details !== undefined ? { details: error.details } : {}),
    },
    requestId,
  }),
});

export const internalError = () => new AppError('internal_error', 'Something went wrong on our side');
