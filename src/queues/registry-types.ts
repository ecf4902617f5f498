import type { AddJobInput } from '../intake/job-request.js';

/**
 * The queues of an application, declared once by declaration merging, so that producers that
 * do not import the handlers are typed too:
 *
 * ```ts
 * declare module 'tidemark' {
 *   interface Queues {
 *     emails: { data: { to: string }; output: { sent: boolean } };
 *   }
 * }
 * ```
 *
 * Once any queue is declared, `tm.addJob` accepts only declared names, each with its data,
 * and `tm.result` of the id it returned resolves to the queue's output.
 */
// biome-ignore lint/suspicious/noEmptyInterface: declaration merging fills it in the application
export interface Queues {}

/** The declared queue names (none until the application declares some). */
export type RegisteredQueue = keyof Queues & string;

/** The data type declared for queue `Q`. */
export type QueueDataOf<Q> = Q extends keyof Queues
  ? Queues[Q] extends { data: infer D }
    ? D
    : unknown
  : unknown;

/** The output type declared for queue `Q`. */
export type QueueOutputOf<Q> = Q extends keyof Queues
  ? Queues[Q] extends { output: infer O }
    ? O
    : unknown
  : unknown;

declare const queueOfJob: unique symbol;

/** A job id that remembers its queue's name in its type, for `tm.result`. */
export type JobId<Q> = string & { readonly [queueOfJob]?: Q };

/** `tm.addJob`'s input: any queue and data until queues are declared, then declared ones only. */
export type AddInputFor<Data> = [RegisteredQueue] extends [never]
  ? AddJobInput<Data>
  : { [Q in RegisteredQueue]: AddJobInput<QueueDataOf<Q>> & { queue: Q } }[RegisteredQueue];
