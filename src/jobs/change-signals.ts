import type { EngineCore } from '../engine-core.js';

/*
 * What wakes a subscriber (tm.subscribe) before its next poll: a wait it can cut short, and
 * the notifications every write of a job's notes sends.
 */

/** A wait that ends at a timeout or when fired; a fire with nobody waiting ends the next wait at once. */
export class Wake {
  private fired = false;
  private resolve: (() => void) | null = null;

  fire(): void {
    if (this.resolve === null) this.fired = true;
    else this.resolve();
  }

  wait(ms: number): Promise<void> {
    if (this.fired) {
      this.fired = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.resolve = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.resolve = done;
    });
  }
}

/** What a notification of a notes write wakes: the job's subscribers and its queue's. */
export type NotesTopic = `job:${string}` | `queue:${string}`;

/**
 * One LISTEN per engine for its subscribers, opened with the first and closed with the last:
 * an engine nobody subscribes through holds no connection for it. A notes write notifies
 * `n:<id>:<queue>`.
 */
class Notifications {
  private readonly byTopic = new Map<NotesTopic, Set<() => void>>();
  private subscription: Promise<{ close(): Promise<void> }> | null = null;

  constructor(private readonly core: EngineCore) {}

  async on(topic: NotesTopic, listener: () => void): Promise<() => void> {
    let listeners = this.byTopic.get(topic);
    if (listeners === undefined) {
      listeners = new Set();
      this.byTopic.set(topic, listeners);
    }
    listeners.add(listener);
    this.subscription ??= this.core.storage.listen((payload) => this.deliver(payload));
    try {
      await this.subscription;
    } catch (error) {
      // Without notifications the subscriber still reads the job every pollSeconds.
      this.subscription = null;
      this.core.logger.warn('tm.subscribe could not listen for notifications; reading by polling', {
        error: String(error),
      });
    }
    return () => this.off(topic, listener);
  }

  private deliver(payload: string): void {
    if (!payload.startsWith('n:')) return;
    const split = payload.indexOf(':', 2);
    if (split < 0) return;
    for (const topic of [`job:${payload.slice(2, split)}`, `queue:${payload.slice(split + 1)}`] as const) {
      for (const listener of this.byTopic.get(topic) ?? []) listener();
    }
  }

  private off(topic: NotesTopic, listener: () => void): void {
    const listeners = this.byTopic.get(topic);
    listeners?.delete(listener);
    if (listeners?.size === 0) this.byTopic.delete(topic);
    if (this.byTopic.size > 0 || this.subscription === null) return;
    const closing = this.subscription;
    this.subscription = null;
    void closing.then((subscription) => subscription.close()).catch(() => {});
  }
}

const hubs = new WeakMap<EngineCore, Notifications>();

/** The engine's one hub of notes notifications. */
export function notifications(core: EngineCore): Notifications {
  let hub = hubs.get(core);
  if (hub === undefined) {
    hub = new Notifications(core);
    hubs.set(core, hub);
  }
  return hub;
}

/** Fire `wake` when `signal` aborts; returns what stops listening. */
export function wakeOnAbort(wake: Wake, signal: AbortSignal | undefined): () => void {
  if (signal === undefined) return () => {};
  const fire = () => wake.fire();
  signal.addEventListener('abort', fire, { once: true });
  return () => signal.removeEventListener('abort', fire);
}
