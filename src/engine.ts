import type { EngineCore } from './engine-core.js';
import { InvalidOptionError } from './errors.js';
import { TypedEmitter } from './events.js';
import { defaultLogger } from './log/logger.js';
import { OnceLogger } from './log/once.js';
import { checkKnownKeys, checkObject } from './options/check.js';
import { checkOpenScalars, type OpenOptions } from './options/open-options.js';
import { readOptions } from './options/read-options.js';
import { DEFAULT_MAX_ATTEMPTS } from './queues/queue-options.js';
import { QueueRegistry } from './queues/queue-registry.js';
import { freezeRetention, Retention } from './retention/policy.js';
import { notePolicy } from './retention/policy-notes.js';
import { checkSchemaName, openStorage } from './storage/open-storage.js';

/**
 * `Tidemark.open`: check the options (nothing is opened when one is wrong), connect,
 * migrate or check the schema, and assemble the engine's parts.
 */
export async function openEngine(input: OpenOptions): Promise<EngineCore> {
  const options = checkObject(readOptions(input, 'options'), 'options') as OpenOptions;
  checkKnownKeys(options as Record<string, unknown>, '', [
    'database',
    'schema',
    'retention',
    'logger',
    'archive',
    'strictDurability',
    'migrate',
    'poolSize',
    'capabilities',
    'preparedStatements',
    'listenDatabase',
  ]);
  checkOpenScalars(options as Record<string, unknown>);
  const schema = checkSchemaName(options.schema ?? 'tidemark');
  const retentionDisabled = options.retention === false;
  const engineRetention = freezeRetention(
    options.retention === undefined ? Retention.STOCK : options.retention,
  );
  if (options.archive !== undefined && typeof options.archive !== 'function') {
    throw new InvalidOptionError('archive', 'a function (batch, tx) => void', options.archive);
  }
  const logger = options.logger ?? defaultLogger();
  const once = new OnceLogger(logger);
  if (options.retention !== undefined) notePolicy(once, options.retention, 'engine');
  const events = new TypedEmitter();
  const storage = await openStorage(options.database ?? './.tidemark', {
    schema,
    migrate: options.migrate !== false,
    hasRetention: options.capabilities?.retention !== false,
    strictDurability: options.strictDurability,
    poolSize: options.poolSize,
    preparedStatements: options.preparedStatements,
    listenDatabase: options.listenDatabase,
    onError: (error) => {
      events.emit('error', { scope: 'database', error });
      logger.warn('database connection error', { error: String(error) });
    },
  });
  return {
    storage,
    registry: new QueueRegistry(storage),
    engineRetention,
    retentionDisabled,
    insertDefaults: { retention: engineRetention, maxAttempts: DEFAULT_MAX_ATTEMPTS },
    logger,
    once,
    events,
    archive: options.archive,
  };
}
