import { constants } from 'node:os';
import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { boolean, custom, seconds } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import type { Worker } from './worker.js';

/** `tm.stopOnSignals()`'s options, declared once. */
export const stopOnSignalsOptions = new OptionSet('options', {
  signals: custom<NodeJS.Signals[]>({
    expected: 'a non-empty array of signal names',
    docType: '`NodeJS.Signals[]`',
    docDefault: "`['SIGTERM', 'SIGINT']`",
    description: 'signals that start the shutdown',
    jsonSchema: { type: 'array', minItems: 1, items: { type: 'string' } },
    check: checkSignals,
  }),
  timeoutSeconds: seconds(
    { max: 86_400 },
    {
      description:
        'how long running handlers get to finish before their jobs are given back (no attempt counted)',
      docDefault: "each worker's own `shutdownTimeoutSeconds`",
    },
  ),
  exit: boolean({
    default: true,
    description:
      "exit the process once the engine is closed: code 0, or 1 when closing failed. With `false` the process is left to the application, and the handlers are removed at the first signal, so a second one gets the application's own handling (or Node's default: the process ends by that signal)",
  }),
});

/** Options of `tm.stopOnSignals`. */
export type StopOnSignalsOptions = OptionsOf<typeof stopOnSignalsOptions.properties>;

/** What the shutdown needs of the engine. */
export interface ShutdownHost {
  core: EngineCore;
  /** Every worker of the engine, read when the signal arrives. */
  workers: Iterable<Worker>;
  close(): Promise<void>;
}

interface ResolvedOptions {
  signals: NodeJS.Signals[];
  timeoutSeconds: number | undefined;
  exit: boolean;
}

// Both kill the process without running any handler: listening for them would only mislead.
const UNCATCHABLE = new Set(['SIGKILL', 'SIGSTOP']);

/** A signal this platform names (`os.constants.signals`). */
function isSignalName(name: string): name is NodeJS.Signals {
  return name in constants.signals;
}

/**
 * One shutdown per engine, shared by every handler set installed on it: `tm.close()`
 * returns at once to a second caller, so a second installation waiting on it would exit
 * while the first was still giving jobs back.
 */
const shutdowns = new WeakMap<EngineCore, Promise<void>>();

/**
 * Install handlers that, on the first of `signals`, stop every worker of the engine
 * (running handlers get the timeout to finish, then their jobs are released without an
 * attempt counted), close the engine and, unless `exit: false`, exit with code 0 (1 when
 * closing failed). A second signal during the shutdown exits at once with 128 + the
 * signal's number (130 for SIGINT, 143 for SIGTERM). Returns a function that removes the
 * handlers.
 */
export function stopOnSignals(host: ShutdownHost, input: StopOnSignalsOptions = {}): () => void {
  const options = resolveOptions(input);
  const { logger } = host.core;
  let first: NodeJS.Signals | null = null;

  const onSignal = (signal: NodeJS.Signals) => {
    if (first !== null) {
      const code = 128 + (constants.signals[signal] ?? 0);
      logger.warn('second signal during shutdown; exiting now', { signal, code });
      process.exit(code);
    }
    first = signal;
    if (!options.exit) remove();
    logger.info('stopping workers and closing on signal', {
      signal,
      ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds }),
    });
    shutDown(host, options.timeoutSeconds).then(
      () => {
        if (options.exit) process.exit(0);
      },
      (error) => {
        host.core.events.emit('error', { scope: 'shutdown', error });
        logger.error('shutdown on signal failed', { signal, error: String(error) });
        if (options.exit) process.exit(1);
      },
    );
  };

  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    for (const signal of options.signals) process.off(signal, onSignal);
  };
  for (const signal of options.signals) process.on(signal, onSignal);
  return remove;
}

function shutDown(host: ShutdownHost, timeoutSeconds: number | undefined): Promise<void> {
  let running = shutdowns.get(host.core);
  if (!running) {
    running = (async () => {
      // Stopping the workers first, with the asked timeout, is what gives running jobs back;
      // close() then stops nothing more, and waits for dashboards and the database.
      const options = timeoutSeconds === undefined ? {} : { timeoutSeconds };
      await Promise.all([...host.workers].map((worker) => worker.stop(options)));
      await host.close();
    })();
    shutdowns.set(host.core, running);
  }
  return running;
}

function resolveOptions(input: unknown): ResolvedOptions {
  const { signals, timeoutSeconds, exit } = stopOnSignalsOptions.read(input);
  const chosen: NodeJS.Signals[] = signals ?? ['SIGTERM', 'SIGINT'];
  return { signals: [...new Set(chosen)], timeoutSeconds, exit };
}

function checkSignals(value: unknown, field: string): NodeJS.Signals[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new InvalidOptionError(field, 'a non-empty array of signal names', value);
  }
  return value.map((signal, i) => {
    if (typeof signal !== 'string' || !isSignalName(signal) || UNCATCHABLE.has(signal)) {
      throw new InvalidOptionError(
        `${field}[${i}]`,
        'a signal name a process can handle, such as SIGTERM or SIGINT',
        signal,
      );
    }
    return signal;
  });
}
