import type { ApiScope } from '../options/api-options.js';

/** A token that passed: its name (the audit's actor) and what it may do. */
export interface ApiCaller {
  name: string;
  scopes: readonly ApiScope[];
}

/** `read`: get a job, its result, list jobs. `admin` holds every scope. */
export function canRead(caller: ApiCaller): boolean {
  return caller.scopes.includes('read') || caller.scopes.includes('admin');
}

/** `enqueue:<queue>`, `enqueue:*` or `admin`. */
export function canEnqueue(caller: ApiCaller, queue: string): boolean {
  return onQueue(caller, 'enqueue', queue);
}

/** `signal:<queue>`, `signal:*` or `admin`: signal the jobs of that queue. */
export function canSignal(caller: ApiCaller, queue: string): boolean {
  return onQueue(caller, 'signal', queue);
}

/** Whether the token may add to some queue, or signal some queue's jobs: checked before a body is read. */
export function hasVerb(caller: ApiCaller, verb: 'enqueue' | 'signal'): boolean {
  return caller.scopes.some((scope) => scope === 'admin' || scope.startsWith(`${verb}:`));
}

/** Cancel and retry change what an operator decides: `admin` only. */
export function isAdmin(caller: ApiCaller): boolean {
  return caller.scopes.includes('admin');
}

function onQueue(caller: ApiCaller, verb: 'enqueue' | 'signal', queue: string): boolean {
  return caller.scopes.some(
    (scope) => scope === 'admin' || scope === `${verb}:*` || scope === `${verb}:${queue}`,
  );
}
