import pg from 'pg';
import { withClient } from './postgres.js';

/**
 * Statements sent by every node-postgres client in this process, counted at
 * `Client.prototype.query` (Tidemark, graphile-worker, pg-boss, BullMQ's PostgreSQL backend
 * and the raw loop all use the one `pg` package installed here). No server extension is
 * needed: `pg_stat_statements` is not loaded by a default PostgreSQL.
 */
let statements = 0;
let installed = false;

function installCounter(): void {
  if (installed) return;
  installed = true;
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = prototype.query;
  prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
    statements++;
    return query.apply(this, args);
  };
}

interface ServerCounters {
  walLsn: string;
  xid: number;
}

/**
 * Where the server's WAL insertion stands, and the next transaction id. Both are read live
 * (the cumulative statistics views lag by up to their flush interval), and both are
 * cluster-wide: they include autovacuum and anything else that wrote meanwhile, which on a
 * quiet benchmark machine is autovacuum of the drained table.
 */
async function serverCounters(): Promise<ServerCounters> {
  return withClient(async (client) => {
    const { rows } = await client.query(
      'select pg_current_wal_insert_lsn()::text as lsn, pg_current_xact_id()::text::float8 as xid',
    );
    return { walLsn: rows[0].lsn, xid: rows[0].xid };
  });
}

async function walBytesSince(lsn: string): Promise<number> {
  return withClient(
    async (client) =>
      (await client.query('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1)::float8 as bytes', [lsn]))
        .rows[0].bytes,
  );
}

/**
 * What a measured stretch costs the database per job: statements this process sent, WAL
 * bytes written and write transactions (those that took a transaction id). Start it before
 * the worker and end it after the worker has stopped, so every outcome is written.
 */
export async function startCostCount(): Promise<(jobs: number) => Promise<Record<string, number>>> {
  installCounter();
  const before = await serverCounters();
  const statementsBefore = statements;
  return async (jobs): Promise<Record<string, number>> => {
    const sent = statements - statementsBefore;
    const walBytes = await walBytesSince(before.walLsn);
    const after = await serverCounters();
    if (sent === 0) return {};
    return {
      statementsPerJob: sent / jobs,
      walBytesPerJob: walBytes / jobs,
      // Less the one the first reading took for itself.
      writeTransactionsPerJob: (after.xid - before.xid - 1) / jobs,
    };
  };
}
