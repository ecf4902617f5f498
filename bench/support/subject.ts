/**
 * One job system under test. A subject opens a session on a fresh schema (or queue), and
 * every figure is measured through the same few calls, so each system does the same work.
 */
export interface Subject {
  /** Key used on the command line and in results. */
  readonly key: string;
  /** Name printed in the table. */
  readonly label: string;
  /** The settings used, printed under the table. */
  readonly settings: string;
  /** Where the jobs are kept: PostgreSQL unless said. */
  readonly server?: 'postgres' | 'redis';
  /** A session on fresh storage. */
  open(): Promise<Session>;
  /** A session on the storage another process opened (for the two-process drain). */
  attach(descriptor: string): Promise<Session>;
}

/**
 * Called by a worker for each job, with the job's sequence number. What it returns (or its
 * promise resolves to) is the job's output, for the systems that keep one.
 */
export type JobHandler = (n: number) => unknown;

export interface Session {
  /** What another process passes to `attach` to work the same jobs. */
  readonly descriptor: string;
  /**
   * Add jobs n = from..from+count-1 in batches of `batch` (one call per batch), each with the
   * data `jobData(n, payloadBytes)`.
   */
  bulkAdd(from: number, count: number, batch: number, payloadBytes?: number): Promise<void>;
  /** Add one job. */
  addOne(n: number): Promise<void>;
  /** Start one worker at this concurrency; resolves once it is working. */
  startWorker(concurrency: number, handler: JobHandler): Promise<void>;
  stopWorker(): Promise<void>;
  /** Stop everything and drop what `open` created (not for attached sessions). */
  close(): Promise<void>;
}

/** A handler that does nothing (the no-op job). */
export const noop: JobHandler = () => undefined;

const fillers = new Map<number, { items: unknown[]; note: string }>();

/**
 * An order-like JSON object of about `bytes` bytes of JSON text (exactly at n = 0): `n`, a
 * list of line items and a note that pads it to size. The items are built once per size and
 * shared; each call serialises in full wherever it is stored.
 */
export function jsonOfSize(n: number, bytes: number): { n: number; items: unknown[]; note: string } {
  let filler = fillers.get(bytes);
  if (!filler) {
    const items: unknown[] = [];
    const made = { n: 0, items, note: '' };
    for (let i = 0; ; i++) {
      const item = {
        sku: `SKU-${String(i).padStart(6, '0')}`,
        quantity: (i % 7) + 1,
        priceCents: 999 + 25 * i,
      };
      if (JSON.stringify(made).length + JSON.stringify(item).length + 1 > bytes) break;
      items.push(item);
    }
    made.note = 'x'.repeat(Math.max(0, bytes - JSON.stringify(made).length));
    filler = { items, note: made.note };
    fillers.set(bytes, filler);
  }
  return { n, items: filler.items, note: filler.note };
}

/** A job's data: `{ n }`, or with `payloadBytes`, jsonOfSize(n, payloadBytes). */
export function jobData(n: number, payloadBytes = 0): { n: number } {
  return payloadBytes > 0 ? jsonOfSize(n, payloadBytes) : { n };
}
