import {
  type DashboardHandlerOptions,
  type DashboardOptions,
  dashboardHandlerOptions,
  dashboardOptions,
} from '../options/dashboard-options.js';

export interface ResolvedHandlerOptions {
  token: string | undefined;
  readOnly: boolean;
  basePath: string;
  traceUrl: string | undefined;
}

export function resolveHandlerOptions(input: DashboardHandlerOptions | undefined): ResolvedHandlerOptions {
  const { token, readOnly, basePath, traceUrl } = dashboardHandlerOptions.read(input ?? {});
  return { token, readOnly, basePath, traceUrl };
}

export function resolveServerOptions(
  input: DashboardOptions | undefined,
): ResolvedHandlerOptions & { port: number; host: string } {
  const { token, readOnly, basePath, traceUrl, port, host } = dashboardOptions.read(input ?? {});
  return { token, readOnly, basePath, traceUrl, port, host };
}
