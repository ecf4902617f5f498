import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from '../../support/node-args.js';

/** A fixture script running in its own Node process. */
export interface FixtureProcess {
  child: ChildProcess;
  /** Complete stdout lines so far. */
  lines: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code and signal once the process has exited and its output is read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first stdout line matching `test`. */
  line(test: (line: string) => boolean): Promise<string>;
}

/**
 * Start `test/faults/fixtures/<name>.ts` with tsx and the given environment; `stdin: true` opens
 * a pipe to its standard input (`child.stdin`) for fixtures that take commands.
 */
export function startFixture(
  name: string,
  env: Record<string, string>,
  options: { stdin?: boolean } = {},
): FixtureProcess {
  const script = fileURLToPath(new URL(`../fixtures/${name}.ts`, import.meta.url));
  const child = spawn(process.execPath, scriptArgs(script), {
    env: { ...process.env, ...env },
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { test: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  let partial = '';
  let errText = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    partial += chunk;
    let index = partial.indexOf('\n');
    while (index >= 0) {
      const line = partial.slice(0, index);
      partial = partial.slice(index + 1);
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
      index = partial.indexOf('\n');
    }
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    errText += chunk;
  });
  // 'close' rather than 'exit': it comes after the last of the child's output has been read.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    child,
    lines,
    stderr: () => errText,
    exited,
    line(test) {
      const found = lines.find(test);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push({ test, resolve });
        exited.then(({ code, signal }) =>
          reject(
            new Error(`fixture ${name} exited (code ${code}, signal ${signal}) before the line:\n${errText}`),
          ),
        );
      });
    },
  };
}
