/** Where a command reads and writes; injected so commands run in process under test. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** Resolves when the user asks to stop (Ctrl-C); commands that serve until stopped wait on it. */
  untilInterrupted?: () => Promise<void>;
}

export const processIo: CliIo = {
  stdout: quietOnClosedPipe(process.stdout),
  stderr: process.stderr,
  env: process.env,
  untilInterrupted: () =>
    new Promise((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    }),
};

/** A command failed because of what the user typed: print the message, exit non-zero. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * `tidemark stats | head` closes the pipe early: stop writing instead of crashing with EPIPE,
 * and let the command finish and close the database normally.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): CliIo['stdout'] {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    closed = true;
  });
  return {
    get isTTY() {
      return stream.isTTY;
    },
    write: (text: string) => (closed ? false : stream.write(text)),
  };
}
