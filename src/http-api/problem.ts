import type { ServerResponse } from 'node:http';
import type { ErrorCode, TidemarkError } from '../errors.js';

/** The codes of refusals the API makes itself, before any engine call: the HTTP layer's own. */
export const API_ERROR_CODES = [
  'UNAUTHORIZED',
  'FORBIDDEN',
  'TOO_MANY_FAILED_AUTHENTICATIONS',
  'BODY_TOO_LARGE',
  'MALFORMED_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'ROUTE_NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'INTERNAL',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** A problem details object (RFC 9457), with Tidemark's code as the `code` extension member. */
export interface Problem {
  /** `urn:tidemark:problem:<code>`: stable, one per code. */
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode | ApiErrorCode;
  /** The engine error's structured details (the field at fault, the job's status...), when it has any. */
  details?: Record<string, unknown>;
}

/** A refusal of the HTTP layer: thrown by a route or a check, answered as a problem. */
export class ApiRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    /** Headers the answer carries (Allow, Retry-After, WWW-Authenticate). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * An engine refusal answered with another status than its code's usual one: a queue named in
 * an add's body that does not exist is a body the server cannot process (422), not a missing
 * resource (the route exists).
 */
export class RestatedRefusal extends Error {
  constructor(
    readonly status: number,
    readonly error: TidemarkError,
  ) {
    super(error.message);
  }
}

/** `INVALID_OPTION` → `Invalid option`. */
export function titleOf(code: string): string {
  const words = code
    .toLowerCase()
    .replace(/_/g, ' ')
    .replace(/\bjson\b/, 'JSON');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function problemOf(
  status: number,
  code: ErrorCode | ApiErrorCode,
  detail: string,
  details?: Record<string, unknown>,
): Problem {
  return {
    type: `urn:tidemark:problem:${code}`,
    title: titleOf(code),
    status,
    detail,
    code,
    ...(details !== undefined && Object.keys(details).length > 0 ? { details } : {}),
  };
}

/** Sent with every answer: nothing cached, nothing sniffed, nothing framed. */
const HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** A JSON answer; a HEAD gets the headers alone. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  type = 'application/json',
  method = 'GET',
): void {
  const text = JSON.stringify(body);
  for (const [name, value] of Object.entries(HEADERS)) res.setHeader(name, value);
  res.statusCode = status;
  res.setHeader('content-type', `${type}; charset=utf-8`);
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(method === 'HEAD' ? undefined : text);
}

export function sendProblem(
  res: ServerResponse,
  problem: Problem,
  headers: Record<string, string> = {},
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  sendJson(res, problem.status, problem, 'application/problem+json');
}
