// The `tidemark/dashboard` entry: the dashboard as a handler for your own HTTP server. It is
// apart from `tidemark` so that the engine loads none of the dashboard unless asked to.
export type {
  DashboardHandlerOptions,
  DashboardOptions,
  RunningDashboard,
} from '../options/dashboard-options.js';
export type { DashboardEngine } from './engine-port.js';
export { createDashboardHandler, type DashboardHandler } from './handler.js';
export {
  createTokenHandler,
  type TokenHandler,
  type TokenHandlerOptions,
} from './token-handler.js';
