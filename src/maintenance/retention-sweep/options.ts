import { sweepOption } from '../sweep-option.js';

/** `tm.worker({ sweep })`: the retention sweep on this worker, or `false`. */
export const retentionSweepOption = sweepOption(
  'the retention sweep on this worker (one node per interval across the cluster, first run 1 to 5 s after `start()`); `false` turns it off on this node only. `intervalSeconds` > 0, up to a year; `batchSize` 1 to 10,000, larger values clamped with one warning.',
  '`{ intervalSeconds: 3600, batchSize: 1000 }`',
);
