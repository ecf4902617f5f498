// The `tidemark/http-api` entry: the HTTP API as a handler for your own server, or on its own
// server. It is apart from `tidemark` so that the engine loads none of it unless asked to.
export type {
  ApiOptions,
  ApiScope,
  ApiServerOptions,
  ApiToken,
  RunningApi,
} from '../options/api-options.js';
export type { ApiEngine } from './engine-port.js';
export { type ApiHandler, createApiHandler } from './handler.js';
export { openApiDocument } from './openapi/document.js';
export type { ApiErrorCode, Problem } from './problem.js';
export { serveApi } from './server.js';
