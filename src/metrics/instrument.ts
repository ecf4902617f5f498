import type { EngineCore } from '../engine-core.js';
import { InvalidOptionError } from '../errors.js';
import { seconds } from '../options/fields.js';
import { OptionSet, type OptionsOf } from '../options/option-set.js';
import type {
  CounterLike,
  HistogramLike,
  MeterLike,
  ObservableCallbackLike,
  ObservableGaugeLike,
} from './meter.js';

/** Options of `tm.instrument(meter, options)`. */
/** `tm.instrument(meter, options)`'s options, declared once. */
export const instrumentOptions = new OptionSet('options', {
  queueDepthSampleSeconds: seconds(
    {},
    { default: 5, description: 'queue depth is read from the database at most this often' },
  ),
});

/** Options of `tm.instrument`. */
export type InstrumentOptions = OptionsOf<typeof instrumentOptions.properties>;

/** Histogram buckets in seconds, from 5 ms to 5 min. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * Feed OpenTelemetry instruments from the engine's typed events (the same events the logs
 * read). Returns a function that detaches everything.
 */
export function instrumentEngine(
  core: EngineCore,
  meter: MeterLike,
  input: InstrumentOptions = {},
): () => void {
  if (!meter || typeof meter.createCounter !== 'function') {
    throw new InvalidOptionError('meter', 'an OpenTelemetry Meter (metrics.getMeter(name))', meter);
  }
  const sampleMs = depthSampleMs(input);
  const instruments = createInstruments(meter);
  const offs = feedFromEvents(core, instruments);
  const observeDepth = depthObserver(core, sampleMs);
  instruments.depth.addCallback(observeDepth);
  return () => {
    for (const off of offs) off();
    instruments.depth.removeCallback(observeDepth);
  };
}

/** How often queue depth may be read, in milliseconds, from the checked options. */
function depthSampleMs(input: InstrumentOptions): number {
  return 1000 * instrumentOptions.read(input).queueDepthSampleSeconds;
}

interface Instruments {
  added: CounterLike;
  completed: CounterLike;
  failed: CounterLike;
  pickup: HistogramLike;
  duration: HistogramLike;
  deleted: CounterLike;
  depth: ObservableGaugeLike;
}

function createInstruments(meter: MeterLike): Instruments {
  return {
    added: meter.createCounter('tidemark.jobs.added', { description: 'Jobs added', unit: '{job}' }),
    completed: meter.createCounter('tidemark.jobs.completed', {
      description: 'Jobs completed',
      unit: '{job}',
    }),
    failed: meter.createCounter('tidemark.jobs.failed', {
      description: 'Failed attempts (will_retry says whether the job goes to retry)',
      unit: '{job}',
    }),
    pickup: meter.createHistogram('tidemark.job.pickup_latency', {
      description: 'Time from a job being due to a worker claiming it',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
    duration: meter.createHistogram('tidemark.job.duration', {
      description: 'Handler run time per attempt',
      unit: 's',
      advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
    }),
    deleted: meter.createCounter('tidemark.sweep.deleted', {
      description: 'Rows deleted by retention sweeps',
      unit: '{row}',
    }),
    depth: meter.createObservableGauge('tidemark.queue.depth', {
      description: 'Jobs waiting to run (pending + retry), sampled',
      unit: '{job}',
    }),
  };
}

/** Count and time what the events report; the functions that unsubscribe. */
function feedFromEvents(core: EngineCore, instruments: Instruments): (() => void)[] {
  const { added, completed, failed, pickup, duration, deleted } = instruments;
  return [
    core.events.on('job:added', (e) => added.add(e.count, { queue: e.queue })),
    core.events.on('job:started', (e) =>
      pickup.record(Math.max(e.pickupLatencyMs, 0) / 1000, { queue: e.queue }),
    ),
    core.events.on('job:completed', (e) => {
      completed.add(1, { queue: e.queue });
      duration.record(e.durationMs / 1000, { queue: e.queue, outcome: 'completed' });
    }),
    core.events.on('job:failed', (e) => {
      failed.add(1, { queue: e.queue, will_retry: e.willRetry });
      duration.record(e.durationMs / 1000, { queue: e.queue, outcome: 'failed' });
    }),
    core.events.on('sweep:finished', (e) => {
      if (e.jobs > 0) deleted.add(e.jobs, { kind: 'jobs' });
      if (e.signals > 0) deleted.add(e.signals, { kind: 'signals' });
      if (e.logLines) deleted.add(e.logLines, { kind: 'log_lines' });
      if (e.uniqueLocks > 0) deleted.add(e.uniqueLocks, { kind: 'unique_locks' });
    }),
    core.events.on('unique-lock-sweep:finished', (e) => {
      if (e.uniqueLocks > 0) deleted.add(e.uniqueLocks, { kind: 'unique_locks' });
    }),
  ];
}

/**
 * The queue depth gauge's callback: it reads depth from the database at most every
 * `sampleMs`, one read at a time, and observes the last sample read.
 */
function depthObserver(core: EngineCore, sampleMs: number): ObservableCallbackLike {
  let sample: { at: number; rows: { queue: string; depth: number }[] } | null = null;
  let reading: Promise<void> | null = null;
  const refresh = async () => {
    try {
      sample = { at: Date.now(), rows: await core.storage.reads.depthOfQueues() };
    } catch (error) {
      // A failed read (database down, engine closed) reports nothing rather than stale zeros.
      sample = null;
      core.events.emit('error', { scope: 'metrics', error });
    }
  };
  return async (result) => {
    if (!sample || Date.now() - sample.at >= sampleMs) {
      reading ??= refresh().finally(() => {
        reading = null;
      });
      await reading;
    }
    for (const row of sample?.rows ?? []) result.observe(row.depth, { queue: row.queue });
  };
}
