import type { Runner } from './runner.js';
import * as maintenance from './sql/maintenance.js';

/** True when this caller won the service's turn for the current interval, cluster-wide. */
export async function takeTurn(db: Runner, name: string, intervalSeconds: number): Promise<boolean> {
  return db.driver.transaction(async (tx) => {
    const [lock] = await db.run(maintenance.tryAdvisoryLock, { key: `tidemark:${db.schema}:${name}` }, tx);
    if (!lock?.locked) return false;
    const rows = await db.run(maintenance.takeTurn, { name, interval_seconds: intervalSeconds }, tx);
    return rows.length > 0;
  });
}

export async function recordTurnResult(db: Runner, name: string, result: unknown): Promise<void> {
  await db.run(maintenance.recordTurnResult, { name, result: JSON.stringify(result) });
}

export async function readTurn(
  db: Runner,
  name: string,
): Promise<{ lastRunAt: Date | null; lastResult: unknown } | null> {
  const rows = await db.run(maintenance.readTurn, { name });
  return rows[0] ? { lastRunAt: rows[0].last_run_at, lastResult: rows[0].last_result } : null;
}

export async function recoverStalled(db: Runner, limit: number): Promise<number> {
  const [row] = await db.run(maintenance.recoverStalled, {
    limit,
    channel: db.channel,
  });
  return Number(row?.n ?? 0);
}

export async function expireJobs(db: Runner, limit: number): Promise<number> {
  return (await db.run(maintenance.expireJobs, { limit })).length;
}

export async function promoteRetries(db: Runner, limit: number): Promise<number> {
  return (await db.run(maintenance.promoteRetries, { limit })).length;
}

export async function nudgeDueQueues(db: Runner, sinceSeconds: number): Promise<void> {
  await db.run(maintenance.nudgeDueQueues, { since_seconds: sinceSeconds, channel: db.channel });
}
