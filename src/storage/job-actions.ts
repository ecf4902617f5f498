import { retryOnDeadlock } from './retry-deadlock.js';
import type { Runner } from './runner.js';
import * as actions from './sql/job-actions.js';

export async function cancelSubtree(db: Runner, id: string): Promise<string[]> {
  const rows = await retryOnDeadlock(() => db.run(actions.cancelSubtree, { id, channel: db.channel }));
  return rows.map((r) => String(r.id));
}

export async function retrySubtree(db: Runner, id: string): Promise<string[]> {
  const rows = await retryOnDeadlock(() => db.run(actions.retrySubtree, { id, channel: db.channel }));
  return rows.map((r) => String(r.id));
}

export async function pauseJob(db: Runner, id: string): Promise<boolean> {
  return (await db.run(actions.pauseJob, { id })).length > 0;
}

export async function resumeJob(db: Runner, id: string): Promise<boolean> {
  return (await db.run(actions.resumeJob, { id, channel: db.channel })).length > 0;
}
