import { DEFAULT_BATCH_SIZE } from '../options/batch-size.js';
import { either, literal, object, seconds } from '../options/fields.js';
import { batchSizeField } from '../options/shared-fields.js';

/** A sweep's settings on a worker, checked: how often, and rows per delete statement. */
export interface ResolvedSweep {
  intervalSeconds: number;
  batchSize: number;
}

export const DEFAULT_SWEEP: ResolvedSweep = Object.freeze({
  intervalSeconds: 3_600,
  batchSize: DEFAULT_BATCH_SIZE,
});

/**
 * A sweep's option on a worker, as each sweep declares its own: its interval and batch size,
 * or `false` to run none on this node.
 */
export function sweepOption(description: string, docDefault: string) {
  return either(
    [
      literal(false),
      object(
        {
          intervalSeconds: seconds(
            { exclusiveMin: true, max: 31_536_000 },
            {
              default: DEFAULT_SWEEP.intervalSeconds,
              description: 'seconds between runs, one node per interval across the cluster',
            },
          ),
          batchSize: batchSizeField('rows per delete statement'),
        },
        { docType: '`{ intervalSeconds?, batchSize? }`', description },
      ),
    ],
    {
      expected: 'false or { intervalSeconds?, batchSize? }',
      docType: '`{ intervalSeconds?, batchSize? } \\| false`',
      default: DEFAULT_SWEEP,
      docDefault,
      description,
    },
  );
}
