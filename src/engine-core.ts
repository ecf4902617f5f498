import type { TypedEmitter } from './events.js';
import type { Logger } from './log/logger.js';
import type { QueueRegistry } from './queues/queue-registry.js';
import type { ArchiveHook } from './retention/archive.js';
import type { FrozenRetention } from './storage/rows.js';
import type { Storage } from './storage/storage.js';
import type { WorkflowStorage } from './storage/workflow-storage.js';

/** What the engine's parts share: one storage, one registry, one logger, one event stream. */
export interface EngineCore {
  storage: Storage;
  workflow: WorkflowStorage;
  registry: QueueRegistry;
  /** The engine's default retention, frozen (STOCK unless the engine says otherwise). */
  engineRetention: FrozenRetention;
  /** Whether the engine's own retention option is `false`. */
  retentionDisabled: boolean;
  logger: Logger;
  events: TypedEmitter;
  archive?: ArchiveHook;
}
