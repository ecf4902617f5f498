import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
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
}): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
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
