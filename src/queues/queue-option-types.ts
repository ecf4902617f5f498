import type { BatchHandler, BatchOptions } from '../model/batch.js';
import type { OptionsOf } from '../options/option-set.js';
import type { Handler, queueOptions } from './queue-options.js';

/**
 * Options of `tm.createQueue`: the declared queue options, with the handler typed; with
 * `batch`, the handler takes an array of jobs and gives an outcome per job.
 */
export type QueueOptions<Data = unknown, Output = unknown> =
  | SingleQueueOptions<Data, Output>
  | BatchQueueOptions<Data, Output>;

/** Options of `tm.createQueue` for a queue without `batch`: its handler takes one job. */
export type SingleQueueOptions<Data = unknown, Output = unknown> = CommonQueueOptions & {
  batch?: undefined;
  handler?: Handler<Data, Output>;
};

/** Options of `tm.createQueue` for a queue with `batch`: its handler takes batches. */
export type BatchQueueOptions<Data = unknown, Output = unknown> = CommonQueueOptions & {
  batch: BatchOptions<Data>;
  handler?: BatchHandler<Data, Output>;
};

/** The declared options every queue takes, without its handler and batch. */
type CommonQueueOptions = Omit<OptionsOf<typeof queueOptions.properties, 'name'>, 'handler' | 'batch'>;
