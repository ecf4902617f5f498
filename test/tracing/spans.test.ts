import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { engineOf } from '../../src/engine-handle.js';
import { InvalidOptionError, type Job } from '../../src/index.js';
import { describeOnOneDriver } from '../support/each-driver.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager().enable();
context.setGlobalContextManager(contextManager);
const tracer = provider.getTracer('app');
after(() => {
  context.disable();
  contextManager.disable();
});

/** Add a job inside an application span, as a request handler would; returns both. */
async function addInSpan(add: () => Promise<{ id: string }>) {
  return tracer.startActiveSpan('enqueue', async (span) => {
    const { id } = await add();
    span.end();
    return { id, enqueue: span.spanContext() };
  });
}

const spansOf = (name: string) => exporter.getFinishedSpans().filter((span) => span.name === name);
const attemptsOf = (job: string) =>
  exporter
    .getFinishedSpans()
    .filter((span) => span.attributes['tidemark.job.id'] === job)
    .sort((a, b) => Number(a.attributes['tidemark.attempt']) - Number(b.attributes['tidemark.attempt']));
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const linkedTo = (span: ReadableSpan) => span.links.map((link) => link.context.spanId);

/** The spans, drawn as a tree by parent, for the failure messages and the closing note. */
function drawn(): string {
  const spans = exporter.getFinishedSpans();
  const lines: string[] = [];
  const draw = (span: ReadableSpan, depth: number) => {
    const links =
      span.links.length > 0 ? ` (linked to ${span.links.map((l) => l.context.spanId).join(', ')})` : '';
    lines.push(`${'  '.repeat(depth)}${span.name} ${span.spanContext().spanId}${links}`);
    for (const child of spans.filter((s) => parentOf(s) === span.spanContext().spanId))
      draw(child, depth + 1);
  };
  for (const root of spans.filter((s) => parentOf(s) === undefined)) draw(root, 0);
  return lines.join('\n');
}

describeOnOneDriver('tracing', ({ openOnClock }) => {
  const open = () => openOnClock({ tracer } as never);

  test('the first attempt is a CONSUMER child of the add; a retry is a new trace linked to it', async () => {
    exporter.reset();
    const tm = await open();
    tm.createQueue({
      name: 'mail',
      maxAttempts: 2,
      backoff: { delaySeconds: 5, jitter: false },
      handler: (job: Job) => {
        if (job.attempts === 1) throw new Error('smtp down');
      },
    });
    const { id, enqueue } = await addInSpan(() => tm.addJob({ queue: 'mail', data: {} }));
    assert.deepEqual((await tm.getJob(id))?.trace, {
      traceparent: `00-${enqueue.traceId}-${enqueue.spanId}-01`,
    });
    await tm.runUntilIdle();
    await tm.clock.advance(5);
    await tm.runUntilIdle();
    const [first, retry] = attemptsOf(id);
    assert.ok(first && retry, drawn());
    assert.equal(first.name, 'process mail');
    assert.equal(first.kind, SpanKind.CONSUMER);
    assert.equal(first.spanContext().traceId, enqueue.traceId, drawn());
    assert.equal(parentOf(first), enqueue.spanId);
    assert.deepEqual(linkedTo(first), []);
    assert.deepEqual(
      [
        first.attributes['messaging.system'],
        first.attributes['messaging.destination.name'],
        first.attributes['messaging.operation.type'],
        first.attributes['messaging.message.id'],
        first.attributes['tidemark.queue'],
        first.attributes['tidemark.attempt'],
        first.attributes['tidemark.outcome'],
      ],
      ['tidemark', 'mail', 'process', id, 'mail', 1, 'failed'],
    );
    assert.equal(first.status.code, SpanStatusCode.ERROR);
    assert.equal(first.status.message, 'smtp down');
    assert.ok(first.events.some((event) => event.name === 'exception'));
    assert.notEqual(retry.spanContext().traceId, enqueue.traceId, 'a retry starts a trace of its own');
    assert.equal(parentOf(retry), undefined);
    assert.deepEqual(linkedTo(retry), [enqueue.spanId], drawn());
    assert.deepEqual(
      [retry.attributes['tidemark.attempt'], retry.attributes['tidemark.outcome']],
      [2, 'completed'],
    );
    assert.notEqual(retry.status.code, SpanStatusCode.ERROR);
  });

  test('a job recovered after its worker stalled runs in a new trace linked to the add', async () => {
    exporter.reset();
    const tm = await open();
    tm.createQueue({ name: 'report', handler: () => 'done' });
    const { id, enqueue } = await addInSpan(() => tm.addJob({ queue: 'report', data: {} }));
    // A worker that claims the job and dies: its lock lapses, the tick recovers the job.
    const [claimed] = await engineOf(tm).storage.attempts.claimJobs(['report'], 1, 'gone', 1);
    assert.equal(claimed.job.id, id);
    await tm.clock.advance(120);
    await tm.runUntilIdle();
    const [recovered] = attemptsOf(id);
    assert.ok(recovered, drawn());
    assert.equal(recovered.attributes['tidemark.attempt'], 2);
    assert.equal(parentOf(recovered), undefined);
    assert.deepEqual(linkedTo(recovered), [enqueue.spanId], drawn());
    assert.equal((await tm.getJob(id))?.status, 'completed');
  });

  test('a workflow: steps are spans, a replayed step an event, the resume linked, a child under the call that added it', async () => {
    exporter.reset();
    const tm = await open();
    tm.createQueue({ name: 'kid', handler: () => 'kid done' });
    tm.createQueue({
      name: 'flow',
      handler: async (_job, ctx) => {
        await ctx.step('fetch', () => 'fetched');
        await ctx.sleep('nap', 60);
        const child = await ctx.runChild<string>('kid', {});
        await ctx.step('store', () => child);
        return child;
      },
    });
    const { id, enqueue } = await addInSpan(() => tm.addJob({ queue: 'flow', data: {} }));
    await tm.runUntilIdle();
    await tm.clock.advance(60);
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.output, 'kid done');
    const runs = attemptsOf(id);
    assert.deepEqual(
      runs.map((span) => span.attributes['tidemark.outcome']),
      ['suspended', 'suspended', 'completed'],
      drawn(),
    );
    const [slept, spawned, finished] = runs;
    assert.equal(parentOf(slept), enqueue.spanId, 'the first run is a child of the add');
    for (const resumed of [spawned, finished]) {
      assert.equal(parentOf(resumed), undefined);
      assert.deepEqual(linkedTo(resumed), [enqueue.spanId], drawn());
    }
    const [fetch] = spansOf('step fetch');
    assert.equal(parentOf(fetch), slept.spanContext().spanId, 'a step that runs is a span of its attempt');
    assert.equal(spansOf('step fetch').length, 1, 'a replayed step is no span');
    const replays = (span: ReadableSpan) =>
      span.events.filter((e) => e.name === 'step replayed').map((e) => e.attributes?.['tidemark.step']);
    assert.deepEqual([replays(slept), replays(spawned), replays(finished)], [[], ['fetch'], ['fetch']]);
    const [added] = spansOf('step child#1');
    assert.equal(parentOf(added), spawned.spanContext().spanId);
    const child = (await tm.getJobDetail(id))?.children[0];
    const [kid] = attemptsOf(child?.id ?? '');
    assert.equal(parentOf(kid), added.spanContext().spanId, drawn());
    assert.equal(kid.spanContext().traceId, spawned.spanContext().traceId);
    const [store] = spansOf('step store');
    assert.equal(parentOf(store), finished.spanContext().spanId);
    console.log(`trace of a workflow that sleeps, runs a child and resumes:\n${drawn()}`);
  });

  test("traceFirstAttempt: 'link' starts even the first attempt in a trace of its own, linked to the add", async () => {
    exporter.reset();
    const tm = await openOnClock({ tracer, traceFirstAttempt: 'link' } as never);
    tm.createQueue({ name: 'q', handler: () => {} });
    const { id, enqueue } = await addInSpan(() => tm.addJob({ queue: 'q', data: {} }));
    await tm.runUntilIdle();
    const [first] = attemptsOf(id);
    assert.equal(parentOf(first), undefined);
    assert.notEqual(first.spanContext().traceId, enqueue.traceId);
    assert.deepEqual(linkedTo(first), [enqueue.spanId]);
  });

  test('the job page shows the trace id, linked through the dashboard’s template; a template that is no http(s) URL is refused', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q', handler: () => {} });
    const { id, enqueue } = await addInSpan(() => tm.addJob({ queue: 'q', data: {} }));
    const plain = await tm.dashboard({ port: 0 });
    const linked = await tm.dashboard({
      port: 0,
      traceUrl: 'https://traces.example/t/{traceId}?from=tidemark',
    });
    try {
      const page = async (url: string) => (await fetch(`${url}jobs/${id}`)).text();
      assert.match(
        await page(plain.url),
        new RegExp(`<span class="mono" id="trace-id">${enqueue.traceId}</span>`),
      );
      assert.ok(
        (await page(linked.url)).includes(
          `href="https://traces.example/t/${enqueue.traceId}?from=tidemark" rel="noreferrer">${enqueue.traceId}</a>`,
        ),
      );
    } finally {
      await plain.close();
      await linked.close();
    }
    for (const traceUrl of ['javascript:alert(1)//{traceId}', 'https://traces.example/no-placeholder']) {
      await assert.rejects(
        tm.dashboard({ port: 0, traceUrl }),
        (error: unknown) => error instanceof InvalidOptionError && error.field === 'traceUrl',
        traceUrl,
      );
    }
  });

  test('without a tracer nothing is traced; a tracer that is not one is refused by name', async () => {
    exporter.reset();
    const tm = await openOnClock();
    assert.equal(engineOf(tm).tracing, null);
    tm.createQueue({ name: 'plain', handler: () => {} });
    const { id } = await addInSpan(() => tm.addJob({ queue: 'plain', data: {} }));
    await tm.runUntilIdle();
    assert.equal((await tm.getJob(id))?.trace, null);
    assert.deepEqual(attemptsOf(id), []);
    await assert.rejects(
      openOnClock({ tracer: { start: () => {} } } as never),
      (error: unknown) => error instanceof InvalidOptionError && error.field === 'tracer',
    );
  });
});

test('the trace of a job added outside any span is null, and its attempt a root span', async () => {
  const { createTestTidemark } = await import('../../src/testing/index.js');
  exporter.reset();
  const tm = await createTestTidemark({ tracer } as never);
  try {
    tm.createQueue({ name: 'q', handler: () => trace.getActiveSpan()?.spanContext().spanId });
    const { id } = await tm.addJob({ queue: 'q', data: {} });
    await tm.runUntilIdle();
    const job = await tm.getJob(id);
    assert.equal(job?.trace, null);
    const [span] = attemptsOf(id);
    assert.equal(parentOf(span), undefined);
    assert.equal(job?.output, span.spanContext().spanId, 'the handler runs with its attempt span active');
  } finally {
    await tm.close();
  }
});
