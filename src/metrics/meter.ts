/**
 * The part of the OpenTelemetry `Meter` (from `@opentelemetry/api`) that Tidemark uses,
 * written out so Tidemark's types do not require the package: pass `metrics.getMeter(…)`.
 */
export type MetricAttributes = Record<string, string | number | boolean>;

export interface MetricOptionsLike {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

export interface CounterLike {
  add(value: number, attributes?: MetricAttributes): void;
}

export interface HistogramLike {
  record(value: number, attributes?: MetricAttributes): void;
}

export interface ObservableResultLike {
  observe(value: number, attributes?: MetricAttributes): void;
}

export type ObservableCallbackLike = (result: ObservableResultLike) => void | Promise<void>;

export interface ObservableGaugeLike {
  addCallback(callback: ObservableCallbackLike): void;
  removeCallback(callback: ObservableCallbackLike): void;
}

export interface MeterLike {
  createCounter(name: string, options?: MetricOptionsLike): CounterLike;
  createHistogram(name: string, options?: MetricOptionsLike): HistogramLike;
  createObservableGauge(name: string, options?: MetricOptionsLike): ObservableGaugeLike;
}
