import type * as Api from '@opentelemetry/api';
import { InvalidOptionError } from '../errors.js';
import type {
  AttemptEnd,
  AttemptRelation,
  AttemptTracing,
  JobTrace,
  JobTracing,
  TracerLike,
} from '../model/tracing.js';

/** `00-<trace id>-<span id>-<flags>`, version 00 of W3C Trace Context. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * The engine's tracing, or null when it is off. `@opentelemetry/api` is imported here only,
 * and only when tracing is asked for: an engine without it never loads the package.
 */
export async function openTracing(options: {
  tracer?: TracerLike;
  tracing?: boolean;
  traceFirstAttempt?: AttemptRelation;
}): Promise<JobTracing | null> {
  if (options.tracer === undefined && options.tracing !== true) return null;
  let api: typeof Api;
  try {
    api = await import('@opentelemetry/api');
  } catch (error) {
    throw new InvalidOptionError(
      options.tracer !== undefined ? 'tracer' : 'tracing',
      'the package @opentelemetry/api installed beside tidemark (an optional peer, needed for tracing)',
      undefined,
      error,
    );
  }
  const tracer = (options.tracer as Api.Tracer | undefined) ?? api.trace.getTracer('tidemark');
  return new OtelTracing(api, tracer, options.traceFirstAttempt ?? 'child');
}

class OtelTracing implements JobTracing {
  constructor(
    private readonly api: typeof Api,
    private readonly tracer: Api.Tracer,
    private readonly firstAttempt: AttemptRelation,
  ) {}

  inject(): JobTrace | null {
    const span = this.api.trace.getSpan(this.api.context.active());
    if (span === undefined) return null;
    const context = span.spanContext();
    if (!this.api.isSpanContextValid(context)) return null;
    // Written here rather than by the global propagator: the job must carry W3C context
    // whatever propagator the application configured for its own requests.
    const flags = (context.traceFlags & this.api.TraceFlags.SAMPLED) === 0 ? '00' : '01';
    const traceparent = `00-${context.traceId}-${context.spanId}-${flags}`;
    const tracestate = context.traceState?.serialize();
    return tracestate ? { traceparent, tracestate } : { traceparent };
  }

  startAttempt(
    job: { id: string; queue: string; attempts: number; trace: JobTrace | null },
    relation: AttemptRelation,
  ): AttemptTracing {
    const { api } = this;
    const added = job.trace === null ? null : this.spanContextOf(job.trace);
    const asChild = relation === 'child' && this.firstAttempt === 'child' && added !== null;
    const span = this.tracer.startSpan(
      `process ${job.queue}`,
      {
        kind: api.SpanKind.CONSUMER,
        root: !asChild,
        links: !asChild && added !== null ? [{ context: added }] : [],
        attributes: {
          'messaging.system': 'tidemark',
          'messaging.destination.name': job.queue,
          'messaging.operation.type': 'process',
          'messaging.operation.name': 'process',
          'messaging.message.id': job.id,
          'tidemark.job.id': job.id,
          'tidemark.queue': job.queue,
          'tidemark.attempt': job.attempts,
          'tidemark.relation': asChild ? 'child' : 'link',
        },
      },
      asChild ? api.trace.setSpanContext(api.ROOT_CONTEXT, added) : api.ROOT_CONTEXT,
    );
    return new OtelAttempt(api, this.tracer, span);
  }

  private spanContextOf(trace: JobTrace): Api.SpanContext | null {
    const match = TRACEPARENT.exec(trace.traceparent);
    if (match === null) return null;
    const context: Api.SpanContext = {
      traceId: match[1],
      spanId: match[2],
      traceFlags: Number.parseInt(match[3], 16) & this.api.TraceFlags.SAMPLED,
      isRemote: true,
    };
    if (trace.tracestate) context.traceState = this.api.createTraceState(trace.tracestate);
    return this.api.isSpanContextValid(context) ? context : null;
  }
}

class OtelAttempt implements AttemptTracing {
  private readonly context: Api.Context;

  constructor(
    private readonly api: typeof Api,
    private readonly tracer: Api.Tracer,
    private readonly span: Api.Span,
  ) {
    this.context = api.trace.setSpan(api.ROOT_CONTEXT, span);
  }

  run<T>(fn: () => T): T {
    return this.api.context.with(this.context, fn);
  }

  async step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const { api } = this;
    // The active context, not the attempt's: a step inside another call nests under it.
    const parent = api.context.active();
    const span = this.tracer.startSpan(`step ${name}`, { attributes: { 'tidemark.step': name } }, parent);
    try {
      const value = await api.context.with(api.trace.setSpan(parent, span), fn);
      span.end();
      return value;
    } catch (error) {
      recordError(api, span, error);
      span.end();
      throw error;
    }
  }

  replayed(name: string): void {
    this.span.addEvent('step replayed', { 'tidemark.step': name });
  }

  end(status: AttemptEnd, error?: unknown): void {
    this.span.setAttribute('tidemark.outcome', status);
    if (status === 'failed') recordError(this.api, this.span, error);
    this.span.end();
  }
}

function recordError(api: typeof Api, span: Api.Span, error: unknown): void {
  const exception = error instanceof Error ? error : String(error);
  span.recordException(exception);
  span.setStatus({
    code: api.SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}
