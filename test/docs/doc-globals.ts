/**
 * Ambient declarations shared by every documentation block (see check-blocks.ts): the
 * engine the examples call `tm`, and the application's own functions and services they
 * call. Kept in a string, not a .d.ts file, so these globals never leak into the
 * project's own type-check of test/.
 */
export const DOC_GLOBALS = `
/** The engine most examples use, opened elsewhere with Tidemark.open(). */
declare const tm: import('tidemark').Tidemark;
/** The handler context that fragments of handler code (ctx.step, ctx.sleep, …) run in. */
declare const ctx: import('tidemark').JobContext;

declare function sendEmail(to: string, options?: { signal?: AbortSignal }): Promise<void>;
declare function resize(image: { url: string; width: number }, signal: AbortSignal): Promise<{ url: string }>;
declare function renderInvoice(order: { orderId: number }): Promise<{ url: string }>;
declare function notify(error: Error): Promise<void>;
declare const payments: {
  charge(orderId: number, amount: number): Promise<{ id: string; amount: number }>;
  refund(chargeId: string): Promise<{ id: string }>;
};
declare const db: {
  users: { find(id: string): Promise<{ id: string; email: string }> };
};

/** The parts of Express and Fastify the dashboard examples use (neither is installed here). */
declare const app: {
  use(
    path: string,
    handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void,
  ): void;
};
declare const fastify: {
  route(route: {
    method: string[];
    url: string;
    onRequest: (
      request: { raw: import('node:http').IncomingMessage },
      reply: { raw: import('node:http').ServerResponse; hijack(): void },
    ) => void;
    handler: () => Promise<void>;
  }): void;
};

/** The OpenTelemetry Prometheus exporter (not a dependency of this project). */
declare module '@opentelemetry/exporter-prometheus' {
  import { MetricReader } from '@opentelemetry/sdk-metrics';
  export class PrometheusExporter extends MetricReader {
    constructor(config?: { port?: number; endpoint?: string });
    protected onForceFlush(): Promise<void>;
    protected onShutdown(): Promise<void>;
  }
}
`;
