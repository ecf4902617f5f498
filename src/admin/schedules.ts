import type { EngineCore } from '../engine-core.js';
import { type ScheduleRecord, scheduleRecord } from '../schedule/schedules.js';

/** One fire of a schedule: when, the job it created, and that job's status (null once deleted). */
export interface ScheduleFire {
  fireAt: Date;
  jobId: string;
  status: string | null;
}

/** A schedule as the dashboard and `tidemark schedules` show it. */
export interface ScheduleView extends ScheduleRecord {
  /** The latest fires, newest first. */
  fires: ScheduleFire[];
}

export const DEFAULT_FIRES_SHOWN = 5;

/** Every schedule by name, with its next fire time and its latest fires. */
export async function loadSchedules(
  core: EngineCore,
  firesShown = DEFAULT_FIRES_SHOWN,
): Promise<ScheduleView[]> {
  const [schedules, fires] = await Promise.all([
    core.storage.schedules.listSchedules(),
    core.storage.schedules.recentFires(firesShown),
  ]);
  const byName = new Map<string, ScheduleFire[]>();
  for (const fire of fires) {
    const list = byName.get(fire.scheduleName) ?? [];
    list.push({ fireAt: new Date(fire.fireAt), jobId: fire.jobId, status: fire.status });
    byName.set(fire.scheduleName, list);
  }
  return schedules.map((s) => ({ ...scheduleRecord(s), fires: byName.get(s.name) ?? [] }));
}
