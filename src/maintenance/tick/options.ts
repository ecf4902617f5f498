import { seconds } from '../../options/fields.js';

/** `tm.worker({ tickIntervalSeconds })`: how often the maintenance tick runs. */
export const tickIntervalOption = seconds(
  { min: 0.05, max: 86_400 },
  {
    default: 5,
    description:
      'the maintenance tick: recover stalled jobs, expire overdue ones, promote due retries, fire schedules (one node per tick across the cluster); also the resolution of schedules',
  },
);
