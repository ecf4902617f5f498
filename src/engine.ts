import type { EngineCore } from './engine-core.js';
import { TypedEmitter } from './events.js';
import { defaultLogger } from './log/logger.js';
import { OnceLogger } from './log/once.js';
import { type Clock, systemClock } from './model/clock.js';
import { freezeRetention, Retention } from './model/retention-policy.js';
import { type OpenOptions, openOptions } from './options/open-options.js';
import { resolveTokens } from './options/token-options.js';
import { DEFAULT_MAX_ATTEMPTS } from './queues/queue-options.js';
import { QueueRegistry } from './queues/queue-registry.js';
import { notePolicy } from './retention/policy-notes.js';
import { openStorage } from './storage/open-storage.js';
import { openTracing } from './tracing/otel-tracing.js';

/** How many days an audit row is kept unless `audit.retainDays` says otherwise. */
const DEFAULT_AUDIT_DAYS = 90;

/** What `tidemark/testing` opens an engine with, beyond the public options. */
export interface EngineInternals {
  /** A clock the test moves, read by the engine and (through its storage) by the database. */
  testClock?: Clock;
}

/**
 * `Tidemark.open`: check the options (nothing is opened when one is wrong), connect,
 * migrate or check the schema, and assemble the engine's parts.
 */
export async function openEngine(input: OpenOptions, internals: EngineInternals = {}): Promise<EngineCore> {
  const options = openOptions.read(input ?? {});
  const retentionDisabled = options.retention?.policy === false;
  const engineRetention = options.retention?.windows ?? freezeRetention(Retention.STOCK);
  const logger = options.logger ?? defaultLogger();
  const once = new OnceLogger(logger);
  if (options.retention !== undefined) notePolicy(once, options.retention.policy, 'engine');
  const events = new TypedEmitter();
  // Before connecting: a missing @opentelemetry/api is refused with nothing opened.
  const tracing = await openTracing(options);
  const storage = await openStorage(options.database, {
    schema: options.schema,
    migrate: options.migrate,
    hasRetention: options.capabilities?.retention !== false,
    strictDurability: options.strictDurability,
    poolSize: options.poolSize,
    preparedStatements: options.preparedStatements,
    listenDatabase: options.listenDatabase,
    testClockAt: internals.testClock ? new Date(internals.testClock.now()) : undefined,
    onError: (error) => {
      events.emit('error', { scope: 'database', error });
      logger.warn('database connection error', { error: String(error) });
    },
  });
  return {
    storage,
    registry: new QueueRegistry(storage, engineRetention),
    engineRetention,
    retentionDisabled,
    auditRetainSeconds: (options.audit?.retainDays ?? DEFAULT_AUDIT_DAYS) * 86_400,
    insertDefaults: { retention: engineRetention, maxAttempts: DEFAULT_MAX_ATTEMPTS },
    logger,
    once,
    events,
    archive: options.archive,
    clock: internals.testClock ?? systemClock,
    tracing,
    tokens: resolveTokens(options.tokens),
  };
}
