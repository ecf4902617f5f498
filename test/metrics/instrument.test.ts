import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Meter } from '@opentelemetry/api';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { engineOf } from '../../src/engine-handle.js';
import { InvalidOptionError } from '../../src/index.js';
import { runnerOf } from '../../src/storage/storage-internals.js';
import { describeOnOneDriver } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';

/** Collects on demand: the SDK's reader contract without an exporter or a timer. */
class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

function setup(): { meter: Meter; collect: () => Promise<Metrics> } {
  const reader = new TestReader();
  const provider = new MeterProvider({ readers: [reader] });
  return {
    meter: provider.getMeter('tidemark-test'),
    collect: async () => new Metrics((await reader.collect()).resourceMetrics),
  };
}

class Metrics {
  constructor(private readonly resource: ResourceMetrics) {}
  points(name: string): DataPoint<number | Histogram>[] {
    const metric = this.resource.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
  }
  /** The value (a sum, a gauge value or a histogram count) of the point with these attributes. */
  value(name: string, attributes: Record<string, unknown>): number | undefined {
    const point = this.points(name).find((p) =>
      Object.entries(attributes).every(([k, v]) => p.attributes[k] === v),
    );
    if (!point) return undefined;
    return typeof point.value === 'number' ? point.value : point.value.count;
  }
  unit(name: string): string | undefined {
    return this.resource.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name)
      ?.descriptor.unit;
  }
}

describeOnOneDriver('metrics (OpenTelemetry)', ({ open }) => {
  test('jobs added, completed and failed per queue; pickup latency and duration histograms', async () => {
    const tm = await open();
    const { meter, collect } = setup();
    tm.instrument(meter);
    tm.createQueue({ name: 'ok', handler: async () => 'done' });
    tm.createQueue({
      name: 'flaky',
      maxAttempts: 2,
      backoff: { delaySeconds: 0.01 },
      handler: async () => {
        throw new Error('no');
      },
    });
    const ok = await tm.addJobs([1, 2, 3].map((i) => ({ queue: 'ok', data: { i } })));
    const flaky = await tm.addJob({ queue: 'flaky', data: {} });
    const worker = fastWorker(tm);
    await worker.start();
    for (const job of ok) await waitForStatus(tm, job.id, 'completed');
    await waitForStatus(tm, flaky.id, 'failed');
    await worker.stop();
    const m = await collect();
    assert.equal(m.value('tidemark.jobs.added', { queue: 'ok' }), 3);
    assert.equal(m.value('tidemark.jobs.added', { queue: 'flaky' }), 1);
    assert.equal(m.value('tidemark.jobs.completed', { queue: 'ok' }), 3);
    assert.equal(m.value('tidemark.jobs.completed', { queue: 'flaky' }), undefined);
    assert.equal(m.value('tidemark.jobs.failed', { queue: 'flaky', will_retry: true }), 1);
    assert.equal(m.value('tidemark.jobs.failed', { queue: 'flaky', will_retry: false }), 1);
    assert.equal(m.value('tidemark.job.pickup_latency', { queue: 'ok' }), 3);
    assert.equal(m.value('tidemark.job.pickup_latency', { queue: 'flaky' }), 2);
    assert.equal(m.value('tidemark.job.duration', { queue: 'ok', outcome: 'completed' }), 3);
    assert.equal(m.value('tidemark.job.duration', { queue: 'flaky', outcome: 'failed' }), 2);
    assert.equal(m.unit('tidemark.job.duration'), 's');
    const histogram = m.points('tidemark.job.duration')[0].value as Histogram;
    assert.equal(histogram.buckets.boundaries[0], 0.005, 'buckets are in seconds');
  });

  test('queue depth is sampled (pending + retry per queue, zero for an empty queue)', async () => {
    const tm = await open();
    tm.createQueue({ name: 'busy' });
    tm.createQueue({ name: 'empty' });
    const added = await tm.addJobs([1, 2, 3, 4].map((i) => ({ queue: 'busy', data: { i } })));
    await tm.cancelJob(added[0].id);
    const cached = setup();
    tm.instrument(cached.meter, { queueDepthSampleSeconds: 3600 });
    const fresh = setup();
    tm.instrument(fresh.meter, { queueDepthSampleSeconds: 0 });
    const first = await cached.collect();
    assert.equal(first.value('tidemark.queue.depth', { queue: 'busy' }), 3);
    assert.equal(first.value('tidemark.queue.depth', { queue: 'empty' }), 0);
    await tm.addJob({ queue: 'busy', data: {} });
    const again = await cached.collect();
    assert.equal(
      again.value('tidemark.queue.depth', { queue: 'busy' }),
      3,
      'within the sample window: no new read',
    );
    const now = await fresh.collect();
    assert.equal(now.value('tidemark.queue.depth', { queue: 'busy' }), 4);
  });

  test('rows deleted per sweep, by kind', async () => {
    const tm = await open();
    const { meter, collect } = setup();
    tm.instrument(meter);
    tm.createQueue({ name: 'short', retention: { ttlSeconds: 60 } });
    const added = await tm.addJobs([1, 2].map((i) => ({ queue: 'short', data: { i } })));
    for (const job of added) await tm.cancelJob(job.id);
    const db = runnerOf(engineOf(tm).storage).driver;
    await db.query(
      `update "${tm.schema}".jobs set purge_after = now() - interval '1 minute' where queue = 'short'`,
    );
    // A line past its own window (logsAfterSeconds), of a job that stays.
    const { id } = await tm.addJob({ queue: 'short', data: {} });
    await db.query(
      `insert into "${tm.schema}".job_logs (job_id, attempt, level, message, purge_after)
       values ($1, 1, 'info', 'done', now() - interval '1 minute')`,
      [id],
    );
    await tm.sweep({ dryRun: true });
    assert.equal(
      (await collect()).value('tidemark.sweep.deleted', { kind: 'jobs' }),
      undefined,
      'a dry run deletes nothing',
    );
    await tm.sweep();
    const counted = await collect();
    assert.equal(counted.value('tidemark.sweep.deleted', { kind: 'jobs' }), 2);
    assert.equal(counted.value('tidemark.sweep.deleted', { kind: 'log_lines' }), 1);
  });

  test('the returned function detaches; a non-meter is refused', async () => {
    const tm = await open();
    const { meter, collect } = setup();
    const off = tm.instrument(meter);
    tm.createQueue({ name: 'q' });
    await tm.addJob({ queue: 'q', data: {} });
    off();
    await tm.addJob({ queue: 'q', data: {} });
    const m = await collect();
    assert.equal(m.value('tidemark.jobs.added', { queue: 'q' }), 1);
    assert.deepEqual(m.points('tidemark.queue.depth'), []);
    assert.throws(() => tm.instrument({} as never), InvalidOptionError);
    assert.throws(() => tm.instrument(meter, { queueDepthSampleSeconds: -1 }), InvalidOptionError);
  });
});
