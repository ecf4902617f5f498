import { type ChildProcess, spawn } from 'node:child_process';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { silentLogger, Tidemark } from '../../src/index.js';
import { dropSchema, freshSchema, PG_URL, rawQuery } from '../support/databases.js';
import { scriptArgs } from '../support/node-args.js';
import { waitFor } from '../support/wait-for.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

/** A worker process started from fixtures/worker.ts, with its output collected. */
export interface WorkerProcess {
  child: ChildProcess;
  lines: string[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once the line appears (fails with the process's output after the timeout). */
  waitForLine(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  kill(signal: NodeJS.Signals): void;
}

export function startWorker(env: {
  url: string;
  schema: string;
  worker: string;
  mode: 'record' | 'hang';
  lockSeconds?: number;
  /** Another fixture to run (default fixtures/worker.ts). */
  fixture?: string;
}): WorkerProcess {
  const child = spawn(process.execPath, scriptArgs(env.fixture ?? FIXTURE), {
    env: {
      ...process.env,
      CRASH_URL: env.url,
      CRASH_SCHEMA: env.schema,
      CRASH_WORKER: env.worker,
      CRASH_MODE: env.mode,
      CRASH_LOCK_SECONDS: String(env.lockSeconds ?? 30),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stderr: string[] = [];
  let partial = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    partial += chunk;
    const parts = partial.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    child,
    lines,
    stderr,
    exited,
    waitForLine: (match, timeoutMs = 60_000) =>
      waitFor(
        `worker ${env.worker} to print a line (stderr: ${stderr.join('').slice(-2_000)})`,
        () => {
          if (done && !lines.some(match)) throw new Error(`worker ${env.worker} exited: ${stderr.join('')}`);
          return lines.find(match);
        },
        { timeoutMs },
      ),
    kill(signal) {
      if (!done) child.kill(signal);
    },
  };
}

/** The engine, schema and worker processes of one crash suite. */
export interface CrashSuite {
  schema: string;
  tm: Tidemark;
  workers: WorkerProcess[];
}

/**
 * Register the hooks of a suite of worker processes on PostgreSQL (call inside its describe):
 * a fresh schema and an engine on it, which `setup` gives its queues and tables; afterwards
 * every worker process is killed and the schema dropped.
 */
export function useProcessSuite(
  setup: (tm: Tidemark, schema: string) => Promise<void>,
  poolSize = 4,
): CrashSuite {
  const suite = { schema: freshSchema(), workers: [] } as unknown as CrashSuite;
  before(async () => {
    suite.tm = await Tidemark.open({
      database: PG_URL,
      schema: suite.schema,
      logger: silentLogger,
      poolSize,
    });
    await setup(suite.tm, suite.schema);
    await suite.tm.listQueues();
  });
  after(async () => {
    for (const w of suite.workers) w.kill('SIGKILL');
    await Promise.all(suite.workers.map((w) => w.exited));
    await suite.tm.close();
    await dropSchema('pg', suite.schema);
  });
  return suite;
}

/** useProcessSuite with the 'crash' queue and the effects table fixtures/worker.ts writes to. */
export function useCrashSuite(poolSize: number): CrashSuite {
  return useProcessSuite(async (tm, schema) => {
    tm.createQueue({ name: 'crash' });
    await rawQuery(
      tm,
      `create table "${schema}".effects (job_id bigint not null, worker text not null, attempt int)`,
    );
  }, poolSize);
}

/**
 * A starter of fixture worker processes on `schema`, named w0, w1, … in the order started;
 * each is added to `workers` (for the suite to kill afterwards) and awaited until it claims.
 */
export function fixtureStarter(
  schema: string,
  fixture: string,
  workers: WorkerProcess[],
): () => Promise<WorkerProcess> {
  let started = 0;
  return async () => {
    const w = startWorker({ url: PG_URL, schema, worker: `w${started++}`, mode: 'record', fixture });
    workers.push(w);
    await w.waitForLine((line) => line === 'ready');
    return w;
  };
}
