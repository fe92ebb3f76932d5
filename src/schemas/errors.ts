import { z } from 'zod';

export const ERROR_CODES = [
  'invalid_request',
  'no_data',
  'institution_not_found',
  'issuer_not_found',
  'not_found',
  'method_not_allowed',
  'server_error',
] as const;

export const ErrorCode = z.enum(ERROR_CODES);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The five-field error body (/docs/errors), used by every error the API returns. */
export const ErrorBody = z.strictObject({
  code: z.number().int(),
  error: ErrorCode,
  message: z.string(),
  hint: z.string(),
  documentationUrl: z.url(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
