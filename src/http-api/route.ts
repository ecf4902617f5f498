import type { IncomingMessage } from 'node:http';
import type { ApiEngine } from './engine-port.js';
import type { ApiCaller } from './scopes.js';

/** The API's options once read, as the routes use them. */
export interface ApiLimits {
  maxBodyBytes: number;
  idempotencyTtlSeconds: number;
}

/** What a route is given: the engine, the request, who sent it, and a signal for when they leave. */
export interface ApiRequest {
  tm: ApiEngine;
  req: IncomingMessage;
  query: URLSearchParams;
  caller: ApiCaller;
  limits: ApiLimits;
  /** Aborts when the client disconnects before its answer: a wait ends with it. */
  clientGone: AbortSignal;
}

/** What a route answers: a status and its JSON body, and any headers. */
export interface ApiAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ApiRoute {
  method: 'GET' | 'POST';
  /** Matched against the path below `/api/v1`. */
  pattern: RegExp;
  run(request: ApiRequest, match: RegExpMatchArray): Promise<ApiAnswer>;
}

/** A path segment as the route reads it (a broken encoding is taken as written, and refused by the engine). */
export function segment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
