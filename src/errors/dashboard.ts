import { TidemarkError } from './base.js';

/** The dashboard was asked to listen beyond this machine without a token. */
export class InsecureDashboardError extends TidemarkError {
  constructor(host: string) {
    super(
      'INSECURE_DASHBOARD',
      `the dashboard will not listen on '${host}' without a token: pass { token } (16+ characters) or bind to 127.0.0.1`,
      { host },
    );
  }
}
