import type { Server } from 'node:http';
import { Type } from '@sinclair/typebox';
import { InvalidOptionError } from '../errors.js';
import { isRecord } from '../model/guards.js';
import { custom, integer, seconds } from './fields.js';
import { OptionSet, type OptionsOf } from './option-set.js';
import { MIN_TOKEN_LENGTH, TOKEN_NAME } from './token-rules.js';

// The HTTP API's options are declared here, beside the dashboard's, so the dashboard's `api`
// option and the CLI can name them without loading the API itself.

/**
 * What a token may do: `read` (get, result, list), `enqueue:<queue>` or `enqueue:*` (add jobs
 * to that queue, or any), `signal:<queue>` or `signal:*` (signal that queue's jobs), `admin`
 * (all of these, and cancel and retry).
 */
export type ApiScope = 'read' | 'admin' | `enqueue:${string}` | `signal:${string}`;

/** One API token: its secret, and the scopes that say what it may do. */
export interface ApiToken {
  /** 16 characters or more, sent as `Authorization: Bearer <secret>`. */
  secret: string;
  scopes: readonly ApiScope[];
}

/** A scope's text: `read`, `admin`, or `enqueue:`/`signal:` and a queue name (or `*`) of 1 to 200 characters. */
const SCOPE = /^(?:read|admin|(?:enqueue|signal):.{1,200})$/s;

/** The most scopes one token carries: enough for any sane list of queues, and a bound on the check. */
const MAX_SCOPES = 100;

function checkApiTokens(value: unknown, field: string): Record<string, ApiToken> {
  if (!isRecord(value) || Object.keys(value).length === 0) {
    throw new InvalidOptionError(
      field,
      'an object of token names to { secret, scopes }, with at least one',
      value,
    );
  }
  const secrets = new Set<string>();
  const tokens: Record<string, ApiToken> = {};
  for (const [name, token] of Object.entries(value)) {
    const at = `${field}.${name}`;
    if (!TOKEN_NAME.test(name)) {
      throw new InvalidOptionError(at, 'a name of letters, digits, ., _, @ or - (up to 64 characters)', name);
    }
    if (!isRecord(token)) throw new InvalidOptionError(at, 'an object { secret, scopes }', '(hidden)');
    const unknown = Object.keys(token).find((key) => key !== 'secret' && key !== 'scopes');
    if (unknown !== undefined) throw new InvalidOptionError(`${at}.${unknown}`, 'secret or scopes', unknown);
    // A secret is not repeated in an error, right or wrong.
    const { secret, scopes } = token;
    if (typeof secret !== 'string' || secret.length < MIN_TOKEN_LENGTH) {
      throw new InvalidOptionError(
        `${at}.secret`,
        `a string of at least ${MIN_TOKEN_LENGTH} characters`,
        '(hidden)',
      );
    }
    if (secrets.has(secret)) {
      throw new InvalidOptionError(`${at}.secret`, 'a secret no other token uses', '(hidden)');
    }
    secrets.add(secret);
    tokens[name] = { secret, scopes: checkScopes(scopes, `${at}.scopes`) };
  }
  return tokens;
}

function checkScopes(value: unknown, field: string): ApiScope[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SCOPES) {
    throw new InvalidOptionError(field, `an array of 1 to ${MAX_SCOPES} scopes`, value);
  }
  value.forEach((scope, i) => {
    if (typeof scope !== 'string' || !SCOPE.test(scope)) {
      throw new InvalidOptionError(
        `${field}[${i}]`,
        "'read', 'admin', 'enqueue:<queue>', 'enqueue:*', 'signal:<queue>' or 'signal:*'",
        scope,
      );
    }
  });
  return [...value] as ApiScope[];
}

export const MAX_BODY_BYTES = 64 * 1024 * 1024;
export const DEFAULT_BODY_BYTES = 1024 * 1024;

const API_FIELDS = {
  tokens: custom<Record<string, ApiToken>>({
    expected: 'an object of token names to { secret, scopes }, with at least one',
    docType: '`Record<string, { secret: string; scopes: ApiScope[] }>`',
    description:
      "the bearer tokens the API accepts, by name (the audit's actor): `{ ci: { secret, scopes: ['enqueue:emails', 'read'] } }`; scopes are `read`, `enqueue:<queue>`, `enqueue:*`, `signal:<queue>`, `signal:*` and `admin` (see [http-api.md](http-api.md))",
    jsonSchema: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: TOKEN_NAME.source },
      additionalProperties: {
        type: 'object',
        required: ['secret', 'scopes'],
        additionalProperties: false,
        properties: {
          secret: { type: 'string', minLength: MIN_TOKEN_LENGTH },
          scopes: {
            type: 'array',
            minItems: 1,
            maxItems: MAX_SCOPES,
            items: { type: 'string', pattern: SCOPE.source },
          },
        },
      },
    },
    check: checkApiTokens,
  }),
  maxBodyBytes: integer(1024, MAX_BODY_BYTES, {
    default: DEFAULT_BODY_BYTES,
    description: 'the largest request body read; a larger one is refused with 413 before any of it is used',
  }),
  idempotencyTtlSeconds: seconds(
    { exclusiveMin: true },
    {
      default: 86_400,
      description: 'how long an `Idempotency-Key` header holds: its `idempotencyKey.ttlSeconds`',
    },
  ),
};

/** The API's options: its tokens and limits, wherever it is served. */
export const apiOptions = new OptionSet('api', API_FIELDS, ['tokens']);

/** The API's options with where its own server listens (`serveApi`, `tidemark serve --api`). */
export const apiServerOptions = new OptionSet(
  'api-server',
  {
    port: integer(0, 65_535, { default: 4322, description: '`0` picks a free port (read it from `url`)' }),
    host: Type.String({
      minLength: 1,
      expected: 'a host name or address',
      docType: '`string`',
      default: '127.0.0.1',
      description: 'the address to bind; every request needs a token wherever it binds',
    }) as ReturnType<typeof Type.String> & { default: string },
    ...API_FIELDS,
  },
  ['tokens'],
);

/** Options of the HTTP API (`createApiHandler`, the dashboard's `api`). */
export type ApiOptions = OptionsOf<typeof apiOptions.properties, 'tokens'>;

/** Options of `serveApi`, which starts the API on its own HTTP server. */
export type ApiServerOptions = OptionsOf<typeof apiServerOptions.properties, 'tokens'>;

/** A running API server. */
export interface RunningApi {
  /** Where it listens, e.g. `http://127.0.0.1:4322/`; the API is under `api/v1/`. */
  url: string;
  server: Server;
  /** Stop listening and close open connections (idempotent). Does not close the Tidemark instance. */
  close(): Promise<void>;
}
