import type { TypedEmitter } from './events.js';
import type { Logger } from './log/logger.js';
import type { OnceLogger } from './log/once.js';
import type { Clock } from './model/clock.js';
import type { FrozenRetention } from './model/job.js';
import type { JobTracing } from './model/tracing.js';
import type { TokenSettings } from './options/token-options.js';
import type { QueueRegistry } from './queues/queue-registry.js';
import type { ArchiveHook } from './retention/archive.js';
import type { InsertDefaults, Storage } from './storage/storage.js';

/** What the engine's parts share: one storage, one registry, one logger, one event stream. */
export interface EngineCore {
  storage: Storage;
  registry: QueueRegistry;
  /** The engine's default retention, frozen (STOCK unless the engine says otherwise). */
  engineRetention: FrozenRetention;
  /** Whether the engine's own retention option is `false`. */
  retentionDisabled: boolean;
  /** How long an audit row is kept, in seconds (`audit.retainDays`). */
  auditRetainSeconds: number;
  /** What a job gets when neither it nor its queue sets retention or attempts. */
  insertDefaults: InsertDefaults;
  logger: Logger;
  /** The same logger, for notes said once per engine (a clamped batch size, a policy's gaps). */
  once: OnceLogger;
  events: TypedEmitter;
  archive?: ArchiveHook;
  /** Where the engine reads the time of day (the database reads the same: see model/clock.ts). */
  clock: Clock;
  /** OpenTelemetry tracing, when `Tidemark.open({ tracer })` or `{ tracing: true }` turned it on. */
  tracing: JobTracing | null;
  /** Callback tokens' URL keys and payload cap (`tokens`); absent: no URLs, the default cap. */
  tokens?: TokenSettings;
}
