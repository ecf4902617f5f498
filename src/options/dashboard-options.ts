import type { Server } from 'node:http';

// The dashboard's public types live here, outside src/dashboard/, so the facade can name
// them in `tm.dashboard()`'s signature without reaching into the dashboard it loads lazily.

/** Options of `createDashboardHandler` (a handler mounted in your own HTTP server). */
export interface DashboardHandlerOptions {
  /**
   * Required to serve anyone but this machine. Shown as `Authorization: Bearer <token>` or
   * typed once into the login form. At least 16 characters.
   */
  token?: string;
  /** Hide and refuse every action (retry, cancel, delete, pause, purge): a window, not a console. */
  readOnly?: boolean;
  /** The path the handler is mounted at, e.g. `'/tidemark'` (default `''`: the root). */
  basePath?: string;
}

/** Options of `tm.dashboard()`, which starts its own HTTP server. */
export interface DashboardOptions extends DashboardHandlerOptions {
  /** Port to listen on; 0 picks a free one. Default 4321. */
  port?: number;
  /** Address to bind. Default `'127.0.0.1'`; anything else requires a token. */
  host?: string;
}

/** A running dashboard server. */
export interface RunningDashboard {
  /** Where it listens, e.g. `http://127.0.0.1:4321/`. */
  url: string;
  server: Server;
  /** Stop listening and close open connections (idempotent). Does not close the Tidemark instance. */
  close(): Promise<void>;
}
