import * as m0001 from './0001-initial.js';
import * as m0002 from './0002-retention-controls.js';
import * as m0003 from './0003-set-based-removal.js';
import * as m0004 from './0004-queue-finished-index.js';
import * as m0005 from './0005-workers.js';
import * as m0006 from './0006-edges-worker-instance.js';
import * as m0007 from './0007-flow-control.js';
import * as m0008 from './0008-rate-limits.js';
import * as m0009 from './0009-debounce-throttle.js';
import * as m0010 from './0010-job-notes.js';
import * as m0011 from './0011-log-window.js';
import * as m0012 from './0012-schedule-controls.js';
import * as m0013 from './0013-run-history.js';
import * as m0014 from './0014-operator-audit.js';
import * as m0015 from './0015-call-record.js';
import * as m0016 from './0016-job-dependencies.js';
import * as m0017 from './0017-callback-tokens.js';
import * as m0018 from './0018-queue-finished-order.js';
import * as m0019 from './0019-sql-enqueue.js';
import * as m0020 from './0020-durable-grants.js';
import * as m0021 from './0021-due-index.js';
import * as m0022 from './0022-limiter-guard.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Every migration, in order. Versions are contiguous from 1; migrations only ever move forward. */
export const migrations: readonly Migration[] = [
  { version: 1, ...m0001 },
  { version: 2, ...m0002 },
  { version: 3, ...m0003 },
  { version: 4, ...m0004 },
  { version: 5, ...m0005 },
  { version: 6, ...m0006 },
  { version: 7, ...m0007 },
  { version: 8, ...m0008 },
  { version: 9, ...m0009 },
  { version: 10, ...m0010 },
  { version: 11, ...m0011 },
  { version: 12, ...m0012 },
  { version: 13, ...m0013 },
  { version: 14, ...m0014 },
  { version: 15, ...m0015 },
  { version: 16, ...m0016 },
  { version: 17, ...m0017 },
  { version: 18, ...m0018 },
  { version: 19, ...m0019 },
  { version: 20, ...m0020 },
  { version: 21, ...m0021 },
  { version: 22, ...m0022 },
];

export const latestVersion = migrations[migrations.length - 1].version;
