import type { ServerResponse } from 'node:http';
import { send } from '../http/respond.js';
import { LIVE_SCRIPT } from './live-script.js';
import { REFRESH_SCRIPT } from './refresh-script.js';
import { STYLE } from './style.js';

/** The style sheet, the two scripts and the (empty) icon, served to anyone; false for any other path. */
export function serveAsset(res: ServerResponse, path: string, method: string): boolean {
  if (path === '/assets/style.css') {
    send(res, 200, 'text/css; charset=utf-8', STYLE, method);
  } else if (path === '/assets/refresh.js') {
    send(res, 200, 'text/javascript; charset=utf-8', REFRESH_SCRIPT, method);
  } else if (path === '/assets/live.js') {
    send(res, 200, 'text/javascript; charset=utf-8', LIVE_SCRIPT, method);
  } else if (path === '/favicon.ico') {
    res.statusCode = 204;
    res.end();
  } else {
    return false;
  }
  return true;
}
