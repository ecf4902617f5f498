import type { EngineCore } from './engine-core.js';

const engines = new WeakMap<EngineHandle, EngineCore>();

/**
 * What a Tidemark engine is to the parts of this package that sit above it (the dashboard,
 * the CLI): a handle whose engine `engineOf` reads. Its protected member makes the type
 * nominal, so only a real engine fits where a handle is asked for; the engine is reachable
 * only through this module, which the package does not export.
 */
export abstract class EngineHandle {
  protected constructor(protected readonly core: EngineCore) {
    engines.set(this, core);
  }
}

/** The engine behind a handle: for the dashboard's and CLI's read models and for tests. */
export function engineOf(handle: EngineHandle): EngineCore {
  const core = engines.get(handle);
  if (core === undefined) throw new TypeError('engineOf: not a Tidemark engine');
  return core;
}

/** The engine behind a handle once its queue definitions are stored, as the facade's reads wait. */
export async function readyEngineOf(handle: EngineHandle): Promise<EngineCore> {
  const core = engineOf(handle);
  await core.registry.flush();
  return core;
}
