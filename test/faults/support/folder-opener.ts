import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scriptArgs } from '../../support/node-args.js';

/** One reply of the folder-opener fixture. */
export interface Reply {
  kind: 'owner' | 'refused' | 'failed' | 'added' | 'closed';
  tag: string;
  value: unknown;
}

/** A folder-opener fixture process, told what to do one line at a time. */
export interface Opener {
  child: ChildProcess;
  replies: Reply[];
  /** Send a command and wait for its reply (`add` replies once per job: the last is awaited). */
  send(command: 'open' | 'lock' | 'close', tag: string, arg?: string): Promise<Reply>;
  /** Send `add <tag> <n>` and resolve with the ids acknowledged, or reject on a refusal. */
  add(tag: string, n: number): Promise<string[]>;
  /** Resolves with the first reply from index `from` on that matches `test`. */
  next(test: (reply: Reply) => boolean, from?: number): Promise<Reply>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  /** Ask it to exit and wait until it has. */
  exit(): Promise<void>;
}

/**
 * Start `test/faults/fixtures/folder-opener.ts` on `folder`; `lock: 'file'` makes it hold folders
 * with the file lock that systems without the socket lock use; `netns` runs it in a network
 * namespace of its own (`unshare --net`, as root); `prefix` is a command that runs it (as
 * `setpriv ... --`).
 */
export function startOpener(
  folder: string,
  options: { lock?: 'file'; netns?: boolean; prefix?: string[]; spawn?: SpawnOptions } = {},
): Opener {
  const script = fileURLToPath(new URL('../fixtures/folder-opener.ts', import.meta.url));
  const prefix = [...(options.netns ? ['unshare', '--net'] : []), ...(options.prefix ?? [])];
  const [command, ...args] = [...prefix, process.execPath, ...scriptArgs(script)];
  const child = spawn(command, args, {
    ...options.spawn,
    env: {
      ...process.env,
      TM_FAULTS_FOLDER: folder,
      TM_FAULTS_LOCK: options.lock ?? '',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const replies: Reply[] = [];
  const waiters: { test: (reply: Reply) => boolean; resolve: (reply: Reply) => void }[] = [];
  let partial = '';
  let errText = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    partial += chunk;
    for (let at = partial.indexOf('\n'); at >= 0; at = partial.indexOf('\n')) {
      const line = partial.slice(0, at);
      partial = partial.slice(at + 1);
      const [kind, tag] = line.split(' ', 2);
      const reply = { kind, tag, value: JSON.parse(line.slice(kind.length + tag.length + 2)) } as Reply;
      replies.push(reply);
      for (const waiter of [...waiters]) {
        if (waiter.test(reply)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(reply);
        }
      }
    }
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    errText += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  const next = (test: (reply: Reply) => boolean, from = 0) => {
    const found = replies.slice(from).find(test);
    if (found) return Promise.resolve(found);
    return new Promise<Reply>((resolve, reject) => {
      waiters.push({ test, resolve });
      exited.then(({ code, signal }) =>
        reject(
          new Error(`folder-opener exited (code ${code}, signal ${signal}) before replying:\n${errText}`),
        ),
      );
    });
  };
  const write = (line: string) => child.stdin?.write(`${line}\n`);
  return {
    child,
    replies,
    next,
    exited,
    stderr: () => errText,
    send(command, tag, arg) {
      const from = replies.length;
      write(arg === undefined ? `${command} ${tag}` : `${command} ${tag} ${arg}`);
      return next((r) => r.tag === tag, from);
    },
    async add(tag, n) {
      let from = replies.length;
      write(`add ${tag} ${n}`);
      const ids: string[] = [];
      while (ids.length < n) {
        const reply = await next((r) => r.tag === tag, from);
        if (reply.kind !== 'added') throw new Error(`add ${tag}: ${JSON.stringify(reply)}`);
        ids.push(reply.value as string);
        from = replies.indexOf(reply) + 1;
      }
      return ids;
    },
    async exit() {
      write('exit');
      await exited;
    },
  };
}
