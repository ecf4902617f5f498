import { defineQuery } from './define-query.js';

/** What one job's page needs to say what a parked workflow waits for, and which signals it takes. */
export interface WorkflowViewRow {
  status: string;
  paused_from: string | null;
  /** The wait the runtime recorded when it parked the job: sleep, signal or child. */
  wait: Record<string, unknown> | null;
  /** `infinity` (no timer) arrives as a string or Infinity, depending on the driver. */
  run_at: Date | string | number;
  /** The queue's declared signals with their mailbox sizes; null when the queue is not stored. */
  declared_signals: Record<string, number> | null;
  child_id: string | null;
  child_queue: string | null;
  child_status: string | null;
  /** The sleep's or the signal wait's checkpoint (its wake time or deadline). */
  wait_checkpoint: Record<string, unknown> | null;
  /** Pending (not yet consumed) signals among the names the wait is for. */
  received: number;
}

/**
 * A job's recorded wait with what it points at, in one statement: the child it waits on, the
 * checkpoint that holds the sleep's wake time or the signal wait's deadline, and how many of
 * the awaited signals have arrived. Every join is an index probe on one job.
 */
export const workflowView = defineQuery<{ id: string }, WorkflowViewRow>(
  'dashWorkflowView',
  /* sql */ `
  select j.status, j.paused_from, j.wait, j.run_at,
         q.options -> 'signals' as declared_signals,
         c.id::text as child_id, c.queue as child_queue, c.status as child_status,
         cp.output as wait_checkpoint,
         (select count(*)::int from /*schema*/signals s
           where s.job_id = j.id and s.consumed_at is null
             and s.name = any(array(select jsonb_array_elements_text(
                   case when jsonb_typeof(j.wait -> 'names') = 'array' then j.wait -> 'names' else '[]'::jsonb end)))
         ) as received
    from /*schema*/jobs j
    left join /*schema*/queues q on q.name = j.queue
    left join /*schema*/jobs c
      on c.id = case when j.wait ->> 'kind' = 'child' then (j.wait ->> 'childId')::bigint end
    left join /*schema*/checkpoints cp
      on cp.job_id = j.id and cp.name = coalesce(j.wait ->> 'key', j.wait ->> 'name')
   where j.id = @id::bigint`,
);
