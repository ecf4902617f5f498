import { InvalidOptionError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { ArchiveHook } from '../retention/archive.js';
import type { RetentionPolicy } from '../retention/policy.js';
import { isPostgresUrl } from '../storage/open-storage.js';
import type { DatabaseOption } from '../storage/storage.js';
import { checkBoolean, checkInteger, checkKnownKeys, checkObject, isStorableText } from './check.js';

/** Options of `Tidemark.open`. */
export interface OpenOptions {
  /** `'./.tidemark'` (default, embedded folder), `'memory://'`, `'postgres://…'`, a `pg.Pool` or a PGlite instance. */
  database?: DatabaseOption;
  /** SQL schema holding Tidemark's tables. Default `'tidemark'`. */
  schema?: string;
  /** The engine's default retention policy (default `Retention.STOCK`); `false` keeps everything. */
  retention?: RetentionPolicy | false;
  logger?: Logger;
  /** Called with each batch of jobs retention is about to delete, in the deleting transaction. */
  archive?: ArchiveHook;
  /** Embedded only: sync the WAL on every commit (power-loss safe, about half the commit rate). */
  strictDurability?: boolean;
  /**
   * Apply pending migrations at open (default true). With `false` nothing is written: open
   * throws SchemaNotFoundError unless the schema exists at this version's migrations.
   */
  migrate?: boolean;
  /** Connections in the pool Tidemark creates from a URL. Default 10. */
  poolSize?: number;
  /**
   * PostgreSQL only: false runs every statement unnamed, never prepared on its connection, for a
   * pooler in transaction mode (PgBouncer), whose server connections change under each client
   * between transactions. Default true. See docs/configuration.md, "Connection poolers".
   */
  preparedStatements?: boolean;
  /**
   * PostgreSQL only: a `postgres://` URL of a direct connection (not through a pooler in
   * transaction mode) used for LISTEN alone, so that workers wake on notifications. Default:
   * the `database` connection.
   */
  listenDatabase?: string;
  /** Capabilities of the storage; `{ retention: false }` models a storage that cannot delete. */
  capabilities?: { retention?: boolean };
}

const LOGGER_METHODS = ['debug', 'info', 'warn', 'error'] as const;

/**
 * Check the `Tidemark.open` options that are plain values, before anything is opened: a
 * bad one would otherwise fail later and far from its cause (a logger without `info`
 * throws inside a worker; a pool size of 0 hangs every query).
 */
export function checkOpenScalars(options: Record<string, unknown>): void {
  if (options.logger !== undefined) checkLogger(options.logger, 'logger');
  if (options.poolSize !== undefined) checkInteger(options.poolSize, 'poolSize', 1, 1_000);
  if (options.strictDurability !== undefined) checkBoolean(options.strictDurability, 'strictDurability');
  if (options.migrate !== undefined) checkBoolean(options.migrate, 'migrate');
  if (options.preparedStatements !== undefined)
    checkBoolean(options.preparedStatements, 'preparedStatements');
  if (options.listenDatabase !== undefined) checkListenDatabase(options.listenDatabase);
  if (options.capabilities !== undefined) {
    const capabilities = checkObject(options.capabilities, 'capabilities');
    checkKnownKeys(capabilities, 'capabilities', ['retention']);
    if (capabilities.retention !== undefined) checkBoolean(capabilities.retention, 'capabilities.retention');
  }
}

function checkListenDatabase(value: unknown): void {
  if (typeof value !== 'string' || !isPostgresUrl(value) || !isStorableText(value) || value.length > 2_000) {
    throw new InvalidOptionError('listenDatabase', 'a postgres:// connection string', redact(value));
  }
}

/** A connection string's password is not repeated in an error message. */
function redact(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/(:\/\/[^:/@]*:)[^@]*@/, '$1***@') : value;
}

function checkLogger(value: unknown, field: string): void {
  const logger = checkObject(value, field);
  const missing = LOGGER_METHODS.filter((method) => typeof logger[method] !== 'function');
  if (missing.length > 0 || (logger.child !== undefined && typeof logger.child !== 'function')) {
    throw new InvalidOptionError(
      field,
      'an object with debug, info, warn and error functions (child optional)',
      value,
    );
  }
}
