import type { Answer } from '../http/answer.ts';
import type { ErrorBody, ErrorCode } from '../schemas/errors.ts';

const STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  no_data: 404,
  institution_not_found: 404,
  issuer_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  server_error: 500,
};

/**
 * A client or server error with the documented error body (`code`, `error`, `message`, `hint`,
 * `documentationUrl`; /docs/errors). `formatError` marks a 400 caused by a parameter of the wrong
 * format: those answers carry no `x-request-id` (/docs/concepts#x-request-id).
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint: string,
    readonly options: { formatError?: boolean; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = STATUS[code];
  }

  body(site: string): ErrorBody {
    return {
      code: this.status,
      error: this.code,
      message: this.message,
      hint: this.hint,
      documentationUrl: `${site}/docs/errors#${this.code}`,
    };
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer of the whole body. */
export function json(body: unknown, status = 200, cache: Answer['cache'] = 'data'): Answer {
  return { status, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(body), cache };
}

/** The documented error body as an answer; the way out decides, by its status, whether caches may keep it. */
export function errorAnswer(error: ApiError, site: string): Answer {
  return {
    status: error.status,
    headers: { 'content-type': JSON_TYPE, ...error.options.headers },
    body: JSON.stringify(error.body(site)),
    cache: 'data',
  };
}
