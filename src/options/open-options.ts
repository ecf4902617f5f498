import { InvalidOptionError } from '../errors.js';
import { fromPino, isPino } from '../log/adapters.js';
import type { Logger } from '../log/logger.js';
import type { TracerLike } from '../model/tracing.js';
import type { ArchiveHook } from '../retention/archive.js';
import {
  checkSchemaName,
  DATABASE_EXPECTED,
  isDatabaseOption,
  isPostgresUrl,
} from '../storage/open-storage.js';
import type { DatabaseOption } from '../storage/storage.js';
import { checkObject, isStorableText } from './check.js';
import { boolean, custom, either, integer, literal, object } from './fields.js';
import { OptionSet, type OptionsOf } from './option-set.js';
import { functionField, retentionField } from './shared-fields.js';
import { tokensField } from './token-options.js';

const LOGGER_METHODS = ['debug', 'info', 'warn', 'error'] as const;

export function checkLogger(value: unknown, field: string): Logger {
  const logger = checkObject(value, field);
  // pino takes (fields, message): called as Tidemark calls loggers, it would drop every field.
  if (isPino(logger) && isLogger(logger)) return fromPino(logger);
  if (!isLogger(logger)) {
    throw new InvalidOptionError(
      field,
      'an object with debug, info, warn and error functions (child optional)',
      value,
    );
  }
  return logger;
}

/** The four level methods are functions, and so is `child` when it is there. */
function isLogger(logger: Record<string, unknown>): logger is Record<string, unknown> & Logger {
  const missing = LOGGER_METHODS.filter((method) => typeof logger[method] !== 'function');
  return missing.length === 0 && (logger.child === undefined || typeof logger.child === 'function');
}

/** A connection string's password is not repeated in an error message. */
function redact(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/(:\/\/[^:/@]*:)[^@]*@/, '$1***@') : value;
}

/**
 * `Tidemark.open`'s options, declared once. The engine checks them all before it opens
 * anything: a bad one would otherwise fail later and far from its cause (a logger without
 * `info` throws inside a worker; a pool size of 0 hangs every query).
 */
export const openOptions = new OptionSet('options', {
  database: custom<DatabaseOption, DatabaseOption, string>({
    expected: DATABASE_EXPECTED,
    docType: '`string \\| pg.Pool \\| PGlite`',
    default: './.tidemark',
    description: 'where the tables live; see [the forms below](#database)',
    jsonSchema: { type: 'string', default: './.tidemark' },
    check: (value, field) => {
      if (!isDatabaseOption(value)) throw new InvalidOptionError(field, DATABASE_EXPECTED, value);
      return value;
    },
  }),
  schema: custom<string, string, string>({
    expected: 'a lowercase identifier of 1-40 characters ([a-z_][a-z0-9_]*)',
    docType: '`string`',
    default: 'tidemark',
    description:
      "the SQL schema holding Tidemark's tables: a lowercase identifier of 1 to 40 characters (`[a-z_][a-z0-9_]*`); several engines can share one database under different schemas. It may be shared with other tools (see [Sharing a schema](#sharing-a-schema))",
    jsonSchema: { type: 'string', pattern: '^[a-z_][a-z0-9_]{0,39}$', default: 'tidemark' },
    check: (value) => checkSchemaName(value),
  }),
  retention: retentionField({
    description:
      "the engine's policy for jobs whose queue and job set none: completed 30 days, failed, cancelled and expired 90 days, consumed signals 7 days; `false` keeps them forever (see [retention.md](retention.md#policies))",
    docDefault: '`Retention.STOCK`',
  }),
  logger: custom<Logger>({
    expected: 'an object with debug, info, warn and error functions (child optional)',
    docType: '`Logger`',
    docDefault: "warnings and errors on stderr, plus each worker's retention line",
    description:
      'any `{ debug, info, warn, error, child? }` object called as `(message, fields)`, such as winston; a pino logger is recognised and called as pino expects, `(fields, message)` (see `fromPino` and `fromWinston`); `consoleLogger(level)` and `silentLogger` are exported',
    check: checkLogger,
  }),
  archive: functionField<ArchiveHook>({
    expected: 'a function (batch, tx) => void',
    docType: '`(batch, tx) => void \\| Promise<void>`',
    description:
      'called with each batch the retention sweep is about to delete, inside the deleting transaction (see [retention.md](retention.md#archive-before-delete))',
  }),
  tracer: custom<TracerLike>({
    expected: 'an OpenTelemetry Tracer (an object with a startSpan function)',
    docType: '`Tracer` (from `@opentelemetry/api`)',
    description:
      'trace each attempt as a span, a child of the span its job was added in (see [jobs.md](jobs.md#tracing)); needs the optional peer `@opentelemetry/api`',
    check: (value, field) => {
      if (
        typeof value !== 'object' ||
        value === null ||
        typeof Reflect.get(value, 'startSpan') !== 'function'
      ) {
        throw new InvalidOptionError(
          field,
          'an OpenTelemetry Tracer (an object with a startSpan function)',
          value,
        );
      }
      return value as TracerLike;
    },
  }),
  tracing: boolean({
    default: false,
    description:
      "trace with the global tracer provider's `tidemark` tracer, as `tracer` does with the one given",
  }),
  traceFirstAttempt: either([literal('child'), literal('link')], {
    expected: "'child' or 'link'",
    docType: "`'child' \\| 'link'`",
    default: 'child' as const,
    description:
      "with tracing, how a job's first attempt relates to the span it was added in: its child (one trace from the request to the job), or the first span of a trace of its own, linked to it. Retries, recoveries and resumes are always linked",
  }),
  strictDurability: boolean({
    default: false,
    description:
      'embedded folder only: sync the write-ahead log on every commit, so a power cut loses no acknowledged commit (about half the commit rate); ignored for the other forms of `database`',
  }),
  migrate: boolean({
    default: true,
    description: 'apply pending migrations when opening; see [`migrate: false`](#migrate-false)',
  }),
  poolSize: integer(1, 1_000, {
    default: 10,
    description:
      'connections in the `pg.Pool` Tidemark creates from a `postgres://` URL; ignored for the other forms',
  }),
  preparedStatements: boolean({
    default: true,
    description:
      '`false` runs every statement unnamed, never prepared on its connection (or, on the embedded database, its instance). Set it behind a pooler in transaction mode (see [Connection poolers](#connection-poolers)); it costs a planning of each statement on each run',
  }),
  listenDatabase: custom<string>({
    expected: 'a postgres:// connection string',
    docType: '`string` (a `postgres://` URL)',
    docDefault: 'the `database` connection',
    description:
      'PostgreSQL only: a separate, direct connection (not through a transaction-mode pooler) used for LISTEN alone, so that workers wake on notifications; refused with an embedded database (see [Connection poolers](#connection-poolers))',
    jsonSchema: { type: 'string', pattern: '^postgres(ql)?://' },
    check: (value, field) => {
      if (
        typeof value !== 'string' ||
        !isPostgresUrl(value) ||
        !isStorableText(value) ||
        value.length > 2_000
      ) {
        throw new InvalidOptionError(field, 'a postgres:// connection string', redact(value));
      }
      return value;
    },
  }),
  audit: object(
    {
      retainDays: integer(1, 36_500, {
        default: 90,
        description: 'days an audit row is kept before the retention pass deletes it',
      }),
    },
    {
      docType: '`{ retainDays?: number }`',
      docDefault: '`{ retainDays: 90 }`',
      description:
        "the audit of operator actions (`tm.listAudit`): its own window, in days; rows older are deleted in batches by the retention pass of this engine's workers and `tm.sweep()`",
    },
  ),
  tokens: tokensField,
  capabilities: object(
    { retention: boolean({ default: true, description: 'whether the storage can delete' }) },
    {
      docType: '`{ retention?: boolean }`',
      docDefault: '`{ retention: true }`',
      description:
        '`retention: false` models a storage that cannot delete: no sweep runs (one warning per worker) and `tm.sweep` / `removeJobs` throw `RetentionUnsupportedError`',
    },
  ),
});

/** Options of `Tidemark.open`. */
export type OpenOptions = OptionsOf<typeof openOptions.properties>;
