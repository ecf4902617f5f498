/**
 * Tracing across enqueue and run (OpenTelemetry): the W3C trace context a job was added in,
 * and what the engine's parts ask of the tracing when it is on. The implementation loads
 * `@opentelemetry/api` (an optional peer) only when `Tidemark.open({ tracer })` or
 * `{ tracing: true }` asks for it; without it, `EngineCore.tracing` is null and nothing runs.
 */

/** The trace context a job was added in (W3C Trace Context), kept on the job. */
export interface JobTrace {
  /** `00-<trace id>-<parent span id>-<flags>`. */
  traceparent: string;
  tracestate?: string;
}

/**
 * The part of an OpenTelemetry `Tracer` (from `@opentelemetry/api`) Tidemark calls, written
 * out so Tidemark's types do not require the package: pass `trace.getTracer('my-app')`.
 */
export interface TracerLike {
  startSpan(name: string, options?: object, context?: unknown): unknown;
}

/** How an attempt's span relates to the span its job was added in. */
export type AttemptRelation = 'child' | 'link';

/** How an attempt's handler ended, as its span says. */
export type AttemptEnd = 'completed' | 'failed' | 'suspended' | 'deferred' | 'lost';

/** The tracing of one attempt: its span, and the spans of its steps. */
export interface AttemptTracing {
  /** Run the handler with the attempt's span active, so what it adds (children) is traced under it. */
  run<T>(fn: () => T): T;
  /** Run a step that runs (not replayed) in a span of its own, active while it runs. */
  step<T>(name: string, fn: () => Promise<T> | T): Promise<T>;
  /** A step replayed from its checkpoint: an event on the attempt's span, not a span. */
  replayed(name: string): void;
  /**
   * End the attempt's span with how the handler ended: `completed`; `failed` (the error is
   * recorded and the status set to error); `suspended` (a workflow parked on a sleep, a
   * signal or a child), `deferred` (`ctx.retryAfter`) or `lost` (cancelled, reclaimed, the
   * worker stopping), none of them an error.
   */
  end(status: AttemptEnd, error?: unknown): void;
}

/** What the engine asks of its tracing. */
export interface JobTracing {
  /** The active trace context, to keep on jobs added now; null outside any span. */
  inject(): JobTrace | null;
  /**
   * Start the span of an attempt (a CONSUMER span), a child of the span its job was added in
   * (`child`), or a new trace linked to it (`link`: retries, recoveries, resumes).
   */
  startAttempt(
    job: { id: string; queue: string; attempts: number; trace: JobTrace | null },
    relation: AttemptRelation,
  ): AttemptTracing;
}
