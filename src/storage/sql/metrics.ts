import { defineQuery, type NoParams } from './define-query.js';

/**
 * Jobs waiting to run per queue (pending + retry), every stored queue included so an empty
 * queue reports 0. Each probe reads the small claim index (in-flight rows only).
 */
export const queueDepths = defineQuery<NoParams, { queue: string; depth: number }>(
  'metricsQueueDepths',
  /* sql */ `
  select q.name as queue,
         (select count(*)::int from /*schema*/jobs j
           where j.queue = q.name and j.status in ('pending', 'retry')) as depth
    from /*schema*/queues q
   order by q.name`,
);
