import type { AddJobResult } from '../intake/job-request.js';
import type { Job } from '../model/job.js';
import type { SignalDelivery } from '../workflow/signal.js';
import type {
  DataIn,
  DataOut,
  OutputOut,
  SignalDeclarations,
  SignalPayloadIn,
  TypedQueueRef,
} from './typed-queue.js';

/** Options of a job added through a handle: `tm.addJob`'s, without the queue and data. */
export type HandleJobOptions = Omit<import('../intake/job-request.js').AddJobInput, 'queue' | 'data'>;

/** What a handle calls on its engine. */
export interface QueuePort {
  addJobs(inputs: { queue: string; data?: unknown }[]): Promise<AddJobResult[]>;
  result(id: string, options?: { timeoutSeconds?: number }): Promise<unknown>;
  signal(id: string, name: string, payload: unknown): Promise<SignalDelivery>;
  getJob(id: string): Promise<Job | null>;
  /** A signal's payload as its schema gives it back (JobValidationError when refused). */
  checkSignal(queue: string, name: string, payload: unknown): Promise<unknown>;
}

/**
 * A typed queue, as `tm.defineQueue` returns it: add, read results and signal its jobs with
 * the types its schemas give, with no type argument written.
 */
export class QueueHandle<I = undefined, O = undefined, S extends SignalDeclarations = Record<never, never>>
  implements TypedQueueRef<DataIn<I>, OutputOut<O>>
{
  declare readonly types?: { data: DataIn<I>; output: OutputOut<O> };

  constructor(
    readonly name: string,
    private readonly port: QueuePort,
  ) {}

  /** Add one job; its data is checked by the input schema first (JobValidationError, nothing written). */
  async add(data: DataIn<I>, options: HandleJobOptions = {}): Promise<AddJobResult> {
    return (await this.port.addJobs([{ ...options, queue: this.name, data }]))[0];
  }

  /** Add many jobs in one statement, all or nothing. */
  async addMany(items: ({ data: DataIn<I> } & HandleJobOptions)[]): Promise<AddJobResult[]> {
    if (!Array.isArray(items)) return this.port.addJobs(items);
    return this.port.addJobs(items.map((item) => ({ ...item, queue: this.name })));
  }

  /** Wait for a job's output, typed by the output schema. */
  async result(id: string, options?: { timeoutSeconds?: number }): Promise<OutputOut<O>> {
    return (await this.port.result(id, options)) as OutputOut<O>;
  }

  /** Signal a job of this queue; the payload is checked by the signal's schema first. */
  async signal<N extends keyof S & string>(
    id: string,
    name: N,
    payload: SignalPayloadIn<S, N>,
  ): Promise<SignalDelivery> {
    return this.port.signal(id, name, await this.port.checkSignal(this.name, name, payload));
  }

  async getJob(id: string): Promise<Job<DataOut<I>, OutputOut<O>> | null> {
    return (await this.port.getJob(id)) as Job<DataOut<I>, OutputOut<O>> | null;
  }
}
