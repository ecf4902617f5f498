import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CliIo } from '../../src/cli/cli-io.js';
import { main } from '../../src/cli/main.js';
import { Tidemark } from '../../src/index.js';
import { type DriverKind, dropSchema, freshSchema, PG_URL } from './databases.js';
import { seedEmbeddedFolder } from './pglite-boot.js';

/** A captured CliIo: what a command wrote, and a Ctrl-C the test presses. */
export interface CapturedIo extends CliIo {
  out(): string;
  err(): string;
  /** Resolve `untilInterrupted` (as Ctrl-C would). */
  interrupt(): void;
  /** Resolves once the command waits for Ctrl-C. */
  waiting: Promise<void>;
}

export function captureIo(env: Record<string, string | undefined> = {}, tty = false): CapturedIo {
  let out = '';
  let err = '';
  let interrupt = () => {};
  let markWaiting = () => {};
  const waiting = new Promise<void>((resolve) => {
    markWaiting = resolve;
  });
  const interrupted = new Promise<void>((resolve) => {
    interrupt = resolve;
  });
  return {
    stdout: { write: (text: string) => (out += text), isTTY: tty },
    stderr: { write: (text: string) => (err += text), isTTY: tty },
    env,
    untilInterrupted: () => {
      markWaiting();
      return interrupted;
    },
    out: () => out,
    err: () => err,
    interrupt: () => interrupt(),
    waiting,
  };
}

/** A database the CLI opens by flags: a pg URL with a fresh schema, or a fresh embedded folder. */
export interface CliDatabase {
  args: string[];
  schema: string;
  /** Create the embedded folder from the packaged seed (no initdb, no PGlite); nothing on PostgreSQL. */
  seed(): Promise<void>;
  /** Open the same database in the test (close it before running a command on PGlite). */
  open(): Promise<Tidemark>;
  dispose(): Promise<void>;
}

export function cliDatabase(kind: DriverKind): CliDatabase {
  const schema = freshSchema();
  if (kind === 'pg') {
    return {
      args: ['--database', PG_URL, '--schema', schema],
      schema,
      seed: async () => {},
      open: () => Tidemark.open({ database: PG_URL, schema }),
      dispose: () => dropSchema('pg', schema),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'tidemark-cli-'));
  const folder = join(dir, 'db');
  return {
    args: ['--database', folder, '--schema', schema],
    schema,
    seed: () => seedEmbeddedFolder(folder),
    open: () => Tidemark.open({ database: folder, schema }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Run `tidemark …args` in process. */
export async function runCli(
  args: string[],
  io: CapturedIo = captureIo(),
): Promise<{ code: number; io: CapturedIo }> {
  const code = await main(args, io);
  return { code, io };
}

/** Open the database, act on it, close it (a PGlite folder has one owner at a time). */
export async function withEngine<T>(
  open: () => Promise<Tidemark>,
  fn: (tm: Tidemark) => Promise<T>,
): Promise<T> {
  const tm = await open();
  try {
    return await fn(tm);
  } finally {
    await tm.close();
  }
}
