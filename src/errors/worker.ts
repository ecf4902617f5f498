import { TidemarkError } from './base.js';

/**
 * `worker.start()` with the `id` of a worker that is live in another process: two processes
 * under one id would overwrite each other's row, and one's stop would delete the other's.
 */
export class WorkerIdInUseError extends TidemarkError {
  readonly workerId: string;
  constructor(workerId: string, host: string, pid: number, beatSecondsAgo: number, goneAfterSeconds: number) {
    super(
      'WORKER_ID_IN_USE',
      `worker id '${workerId}' is live: another process (host ${host}, pid ${pid}) beat ${Math.round(beatSecondsAgo)} s ago. ` +
        `Give each worker its own id, or start this one once the other has stopped (or is gone: no beat for ${Math.round(goneAfterSeconds)} s)`,
      { workerId, host, pid },
    );
    this.workerId = workerId;
  }
}
