import { systemClock } from '../model/clock.js';
import type { DependencyOutcome } from '../model/dependencies.js';
import type { Job } from '../model/job.js';
import type { JobLogLevel, Progress } from '../model/notes.js';
import { freezeRetention, Retention } from '../model/retention-policy.js';
import type { Handler } from '../queues/queue-options.js';
import type { JobContext, SignalResult, SignalsResult } from '../workflow/job-context.js';
import { RunNames } from '../workflow/job-context.js';
import { NoteBook } from '../workflow/note-book.js';
import { RetryAfter } from '../workflow/retry-after.js';
import { type FakeTokenAnswer, fakeTokens, type TokenCall } from './fake-tokens.js';

/** A workflow call a handler made on the fake context, in order. */
export type HandlerCall =
  | { kind: 'step'; name: string; replayed: boolean }
  | { kind: 'sleep'; name: string; seconds: number }
  | { kind: 'signal'; names: string[]; count: number; timedOut: boolean }
  | { kind: 'child'; queue: string; data: unknown }
  | { kind: 'patched'; name: string; value: boolean }
  | TokenCall
  | { kind: 'completionTx' }
  | { kind: 'progress'; value: Progress }
  | { kind: 'metadata'; key: string; value: unknown }
  | { kind: 'log'; level: JobLogLevel; message: string; attrs?: Record<string, unknown> };

/** What the fake context answers with. */
export interface FakeContextOptions<Data = unknown> {
  /** Fields of the job the handler sees (an id, attempts...); `data` is the second argument. */
  job?: Partial<Omit<Job<Data>, 'data'>>;
  /** Payloads each signal name delivers, oldest first. A wait with none left times out when it has a timeout, else throws. */
  signals?: Record<string, unknown[]>;
  /** What `ctx.runChild(queue, data)` returns, by queue: a function of the child's data. */
  children?: Record<string, (data: unknown) => unknown>;
  /** How each token answers `ctx.waitForToken`, by the token's name; a token not named here times out. */
  tokens?: Record<string, FakeTokenAnswer>;
  /** Steps already recorded, by name: replayed (their function does not run), as on a later attempt. */
  steps?: Record<string, unknown>;
  /** What `ctx.patched(name)` answers, by name; true (a new run) for a name not given. */
  patches?: Record<string, boolean>;
  /** What `ctx.dependencies()` returns (none when not given). */
  dependencies?: DependencyOutcome[];
  /** The AbortSignal the handler sees (one that never fires when not given). */
  signal?: AbortSignal;
}

/** What `runHandler` returns: the handler's output, and its workflow calls in order. */
export interface HandlerRun<Output> {
  output: Output;
  calls: HandlerCall[];
}

/**
 * Run one handler directly, with a fake context and no database: steps run (or replay what
 * `steps` holds), sleeps return at once, waits take `signals`, children answer from
 * `children`, and each call is recorded. For a handler's own logic; `createTestTidemark`
 * runs it as the engine does.
 */
export async function runHandler<Data, Output>(
  handler: Handler<Data, Output>,
  data: Data,
  options: FakeContextOptions<Data> = {},
): Promise<HandlerRun<Output>> {
  const calls: HandlerCall[] = [];
  const ctx = fakeContext(fakeJob(data, options), options, calls);
  const output = await handler(ctx.job as Job<Data, Output>, ctx);
  return { output, calls };
}

function fakeJob<Data>(data: Data, options: FakeContextOptions<Data>): Job<Data> {
  const now = new Date();
  return {
    id: '1',
    queue: 'test',
    status: 'active',
    output: null,
    error: null,
    attempts: 1,
    maxAttempts: 1,
    priority: 0,
    runAt: now,
    expireAt: null,
    createdAt: now,
    startedAt: now,
    finishedAt: null,
    parentId: null,
    rootId: null,
    lockedBy: 'test-kit',
    lockedUntil: null,
    retention: freezeRetention(Retention.STOCK),
    purgeAfter: null,
    key: null,
    tier: null,
    tags: [],
    progress: null,
    metadata: {},
    trace: null,
    version: null,
    ...options.job,
    data,
  } as Job<Data>;
}

function fakeContext(job: Job, options: FakeContextOptions, calls: HandlerCall[]): JobContext {
  const names = new RunNames();
  const inbox = new Map(Object.entries(options.signals ?? {}).map(([name, list]) => [name, [...list]]));
  const take = (
    names: string[],
    count: number,
    timeoutSeconds: number | undefined,
  ): { name: string; payloads: unknown[] } | null => {
    const name = names.find((candidate) => (inbox.get(candidate)?.length ?? 0) >= count);
    if (name === undefined) {
      calls.push({ kind: 'signal', names, count, timedOut: true });
      if (timeoutSeconds !== undefined) return null;
      throw new Error(
        `the handler waits for ${count} signal(s) named ${names.join(' or ')} with no timeout, and runHandler's signals hold none: pass them in { signals }`,
      );
    }
    calls.push({ kind: 'signal', names: [name], count, timedOut: false });
    return { name, payloads: (inbox.get(name) ?? []).splice(0, count) };
  };
  const one = (names: string[], timeoutSeconds: number | undefined): SignalResult => {
    const taken = take(names, 1, timeoutSeconds);
    if (taken === null) return { timedOut: true, name: null, payload: null };
    return { timedOut: false, name: taken.name, payload: taken.payloads[0] };
  };
  // The engine's own checks, with nothing written: each call is recorded instead.
  const book = new NoteBook(job, 'test-kit', { mark: () => {} }, systemClock);
  const line =
    (level: JobLogLevel) =>
    (message: string, attrs?: Record<string, unknown>): void => {
      book.log[level](message, attrs);
      calls.push({ kind: 'log', level, message, ...(attrs === undefined ? {} : { attrs }) });
    };
  return {
    signal: options.signal ?? new AbortController().signal,
    job,
    progress(value) {
      book.progress(value);
      calls.push({ kind: 'progress', value });
    },
    metadata: {
      set(key, value) {
        book.metadata.set(key, value);
        calls.push({ kind: 'metadata', key, value });
      },
      get: (key) => book.metadata.get(key),
      all: () => book.metadata.all(),
    },
    log: { info: line('info'), warn: line('warn'), error: line('error') },
    async step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
      names.claim(name);
      const recorded = options.steps ?? {};
      if (Object.hasOwn(recorded, name)) {
        calls.push({ kind: 'step', name, replayed: true });
        return recorded[name] as T;
      }
      calls.push({ kind: 'step', name, replayed: false });
      const value = await fn();
      // Stored as JSON, and read back as JSON on a later attempt.
      return value === undefined ? value : JSON.parse(JSON.stringify(value));
    },
    retryAfter(seconds, retryOptions) {
      return new RetryAfter(seconds, retryOptions);
    },
    async sleep(name: string, seconds: number): Promise<void> {
      names.claim(name);
      calls.push({ kind: 'sleep', name, seconds });
    },
    async waitForSignal(name, waitOptions = {}) {
      return one([name], waitOptions.timeoutSeconds);
    },
    async waitForAny(names, waitOptions = {}) {
      return one(names, waitOptions.timeoutSeconds);
    },
    async waitForSignals(name, count, waitOptions = {}): Promise<SignalsResult> {
      const taken = take([name], count, waitOptions.timeoutSeconds);
      return taken === null
        ? { timedOut: true, payloads: [] }
        : { timedOut: false, payloads: taken.payloads };
    },
    async runChild<T>(queue: string, data?: unknown): Promise<T> {
      calls.push({ kind: 'child', queue, data });
      const answer = options.children?.[queue];
      if (answer === undefined) {
        throw new Error(
          `the handler runs a child on queue '${queue}', and runHandler's children have no answer for it: pass one in { children }`,
        );
      }
      return (await answer(data)) as T;
    },
    async patched(name: string): Promise<boolean> {
      const value = options.patches?.[name] ?? true;
      calls.push({ kind: 'patched', name, value });
      return value;
    },
    ...fakeTokens(names, options.tokens, calls),
    completionTx() {
      calls.push({ kind: 'completionTx' });
    },
    async dependencies() {
      return structuredClone(options.dependencies ?? []);
    },
  };
}
