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
import { createDriver } from './storage/driver/create-driver.js';
import type { Driver } from './storage/driver/driver.js';
import { checkSchema, migrate } from './storage/migrate.js';
import { checkSchemaName } from './storage/schema-name.js';
import { Storage } from './storage/storage.js';
import { WorkflowStorage } from './storage/workflow-storage.js';

/** What an open engine holds: its driver (closed with it) and the parts every use case shares. */
export interface OpenedEngine {
  driver: Driver;
  core: EngineCore;
}

/**
 * `Tidemark.open`: check the options (nothing is opened when one is wrong), connect,
 * migrate or check the schema, and assemble the engine's parts. The driver is closed
 * again when the schema step fails.
 */
export async function openEngine(input: OpenOptions): Promise<OpenedEngine> {
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
  const driver = await createDriver(options.database ?? './.tidemark', {
    strictDurability: options.strictDurability,
    poolSize: options.poolSize,
    preparedStatements: options.preparedStatements,
    listenDatabase: options.listenDatabase,
    onError: (error) => {
      events.emit('error', { scope: 'database', error });
      logger.warn('database connection error', { error: String(error) });
    },
  });
  try {
    if (options.migrate === false) await checkSchema(driver, schema);
    else await migrate(driver, schema);
  } catch (error) {
    await driver.close();
    throw error;
  }
  const storage = new Storage(driver, schema, options.capabilities?.retention !== false);
  const core: EngineCore = {
    storage,
    workflow: new WorkflowStorage(storage),
    registry: new QueueRegistry(storage),
    engineRetention,
    retentionDisabled,
    insertDefaults: { retention: engineRetention, maxAttempts: DEFAULT_MAX_ATTEMPTS },
    logger,
    once,
    events,
    archive: options.archive,
  };
  return { driver, core };
}
