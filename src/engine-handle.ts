import type { EngineCore } from './engine-core.js';
import { DriverClosedError } from './errors.js';
import { checkId } from './options/check.js';

const engines = new WeakMap<EngineHandle, EngineCore>();

/**
 * What a Tidemark engine is to the parts of this package that sit above it (the dashboard,
 * the CLI): a handle whose engine `engineOf` reads, and whose open state every call checks. Its protected member makes the type
 * nominal, so only a real engine fits where a handle is asked for; the engine is reachable
 * only through this module, which the package does not export.
 */
export abstract class EngineHandle {
  #closed = false;

  protected constructor(protected readonly core: EngineCore) {
    engines.set(this, core);
  }

  /** Mark the engine closed; false when it already was (so closing runs once). */
  protected markClosed(): boolean {
    if (this.#closed) return false;
    this.#closed = true;
    return true;
  }

  protected assertOpen(): void {
    if (this.#closed) throw new DriverClosedError();
  }

  /** Open, and every queue definition made here stored: what every call that reads waits for. */
  protected async ready(): Promise<void> {
    this.assertOpen();
    await this.core.registry.flush();
  }

  /** Run a use case once the engine is ready. */
  protected async whenReady<T>(run: (core: EngineCore) => Promise<T>): Promise<T> {
    await this.ready();
    return run(this.core);
  }

  /** The same for a use case of one job: the id is checked first. */
  protected async onJob<T>(id: string, run: (core: EngineCore, jobId: string) => Promise<T>): Promise<T> {
    const jobId = checkId(id);
    return this.whenReady((core) => run(core, jobId));
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
