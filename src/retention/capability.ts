import type { EngineCore } from '../engine-core.js';
import { RetentionUnsupportedError } from '../errors.js';
import type { Logger } from '../log/logger.js';
import type { RetentionCapability } from '../storage/storage.js';

/** The retention capability, or a typed error naming what needed it. */
export function retentionOf(core: EngineCore, operation: string): RetentionCapability {
  const retention = core.storage.retention;
  if (!retention) throw new RetentionUnsupportedError(operation);
  return retention;
}

/** Give deleted rows' space back; failing to must not turn a successful deletion into a failed one. */
export async function reclaim(retention: RetentionCapability, logger: Logger): Promise<void> {
  try {
    await retention.reclaimSpace();
  } catch (error) {
    logger.warn('could not reclaim space after deleting rows', { error: String(error) });
  }
}
