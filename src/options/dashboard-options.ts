import type { Server } from 'node:http';
import { Type } from '@sinclair/typebox';
import { InvalidOptionError } from '../errors.js';
import { type ApiOptions, apiOptions } from './api-options.js';
import { boolean, custom, integer } from './fields.js';
import { toJsonSchema } from './json-schema.js';
import { OptionSet, type OptionsOf } from './option-set.js';
import { MIN_TOKEN_LENGTH, TOKEN_NAME } from './token-rules.js';

// The dashboard's options are declared here, outside src/dashboard/, so the facade can name
// them in `tm.dashboard()`'s signature without reaching into the dashboard it loads lazily.

/** A path like `/tidemark`: no trailing slash, and no `.` or `..` segment a client resolves away. */
const BASE_PATH = /^(\/[A-Za-z0-9._~-]+)*$/;

function checkNamedTokens(value: unknown, field: string): Record<string, string> {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    Object.keys(value).length === 0
  ) {
    throw new InvalidOptionError(field, 'an object of token names to secrets, with at least one', value);
  }
  const seen = new Set<string>();
  for (const [name, secret] of Object.entries(value)) {
    if (!TOKEN_NAME.test(name)) {
      throw new InvalidOptionError(
        `${field}.${name}`,
        'a name of letters, digits, ., _, @ or - (up to 64 characters)',
        name,
      );
    }
    // A secret is not repeated in an error, right or wrong.
    if (typeof secret !== 'string' || secret.length < MIN_TOKEN_LENGTH) {
      throw new InvalidOptionError(
        `${field}.${name}`,
        `a string of at least ${MIN_TOKEN_LENGTH} characters`,
        '(hidden)',
      );
    }
    if (seen.has(secret)) {
      throw new InvalidOptionError(`${field}.${name}`, 'a secret no other token uses', '(hidden)');
    }
    seen.add(secret);
  }
  return { ...(value as Record<string, string>) };
}

const HANDLER_FIELDS = {
  token: custom<string>({
    expected: `a string of at least ${MIN_TOKEN_LENGTH} characters`,
    docType: '`string` (16 characters or more)',
    description:
      'required to serve anyone but this machine: a bearer token, or typed once into the login form',
    jsonSchema: { type: 'string', minLength: MIN_TOKEN_LENGTH },
    check: (value, field) => {
      if (typeof value !== 'string' || value.length < MIN_TOKEN_LENGTH) {
        // A wrong token is still a secret: it is not repeated in the error.
        throw new InvalidOptionError(
          field,
          `a string of at least ${MIN_TOKEN_LENGTH} characters`,
          '(hidden)',
        );
      }
      return value;
    },
  }),
  tokens: custom<Record<string, string>>({
    expected: `an object of names to distinct secrets of at least ${MIN_TOKEN_LENGTH} characters`,
    docType: '`Record<string, string>`',
    docDefault: 'none',
    description:
      "named tokens beside `token`, such as `{ alice: '…', 'ops-bot': '…' }`: each is accepted as `token` is, and the audit records the actions of its logins and bearer requests under its name (`token` acts as `'dashboard'`)",
    jsonSchema: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: TOKEN_NAME.source },
      additionalProperties: { type: 'string', minLength: MIN_TOKEN_LENGTH },
    },
    check: checkNamedTokens,
  }),
  api: custom<ApiOptions, ReturnType<typeof apiOptions.read>>({
    expected: "the HTTP API's options, with its tokens",
    docType: '`ApiOptions`',
    docDefault: 'none: no API',
    description:
      'serve the HTTP API under `/api/v1` beside the pages, with its own bearer tokens and scopes (see [http-api.md](http-api.md)); `readOnly` does not apply to it, its scopes do',
    jsonSchema: (({ $schema: _, title: __, ...schema }) => schema)(toJsonSchema(apiOptions)),
    check: (value, field) => apiOptions.read(value, field),
  }),
  readOnly: boolean({
    default: false,
    description: 'hide and refuse every action (retry, cancel, delete, pause, purge)',
  }),
  traceUrl: custom<string>({
    expected: "an http(s) URL holding '{traceId}', such as 'https://jaeger.example/trace/{traceId}'",
    docType: '`string`',
    docDefault: 'none: the trace id is shown as text',
    description:
      "a link template for the job page's trace id (tracing on): `{traceId}` is replaced by the id",
    jsonSchema: { type: 'string', pattern: '^https?://.*\\{traceId\\}' },
    check: (value, field) => {
      if (
        typeof value !== 'string' ||
        !/^https?:\/\/[^\s]+$/.test(value) ||
        !value.includes('{traceId}') ||
        value.length > 2_000
      ) {
        throw new InvalidOptionError(
          field,
          "an http(s) URL holding '{traceId}', such as 'https://jaeger.example/trace/{traceId}'",
          value,
        );
      }
      return value;
    },
  }),
  basePath: custom<string, string, string>({
    expected: "'' or a path like '/tidemark' (no trailing slash, no '.' or '..' segment)",
    docType: '`string`',
    default: '',
    description: "the path the handler is mounted at, such as `'/tidemark'` (no trailing slash)",
    jsonSchema: { type: 'string', pattern: BASE_PATH.source, default: '' },
    check: (value, field) => {
      if (typeof value !== 'string' || !BASE_PATH.test(value) || /(^|\/)\.\.?(\/|$)/.test(value)) {
        throw new InvalidOptionError(
          field,
          "'' or a path like '/tidemark' (no trailing slash, no '.' or '..' segment)",
          value,
        );
      }
      return value;
    },
  }),
};

/** `createDashboardHandler`'s options (a handler mounted in your own HTTP server). */
export const dashboardHandlerOptions = new OptionSet('options', HANDLER_FIELDS);

/** `tm.dashboard()`'s options: the handler's, and where its own server listens. */
export const dashboardOptions = new OptionSet('options', {
  port: integer(0, 65_535, {
    default: 4321,
    description: '`tm.dashboard` only; `0` picks a free port (read it from `url`)',
  }),
  host: Type.String({
    minLength: 1,
    expected: 'a host name or address',
    docType: '`string`',
    default: '127.0.0.1',
    description:
      '`tm.dashboard` only; any address other than a loopback one requires `token` (`InsecureDashboardError` otherwise)',
  }) as ReturnType<typeof Type.String> & { default: string },
  ...HANDLER_FIELDS,
});

/** Options of `createDashboardHandler` (a handler mounted in your own HTTP server). */
export type DashboardHandlerOptions = OptionsOf<typeof dashboardHandlerOptions.properties>;

/** Options of `tm.dashboard()`, which starts its own HTTP server. */
export type DashboardOptions = OptionsOf<typeof dashboardOptions.properties>;

/** A running dashboard server. */
export interface RunningDashboard {
  /** Where it listens, e.g. `http://127.0.0.1:4321/`. */
  url: string;
  server: Server;
  /** Stop listening and close open connections (idempotent). Does not close the Tidemark instance. */
  close(): Promise<void>;
}
