import type { DependencyOutcome } from '../model/dependencies.js';
import type { Queryable } from './driver/driver.js';
import type { Runner } from './runner.js';
import * as sql from './sql/dependencies.js';

export type { DependencyOutcome } from '../model/dependencies.js';

/* Job dependencies: the add's lock and edges, and the read of a dependent's dependencies. */

/**
 * Lock the named dependencies (in id order) and count the add on each; returns the ids that
 * exist. Must run in the transaction that then inserts the dependents and attaches them.
 */
export async function lockDependencies(db: Runner, ids: string[], on: Queryable): Promise<Set<string>> {
  const rows = await db.run(sql.lockDependencies, { ids }, on);
  return new Set(rows.map((row) => String(row.id)));
}

/** One dependent just inserted: its dependencies and its policy. */
export interface DependentToAttach {
  id: string;
  dependsOn: string[];
  onFailure: 'fail' | 'cancel' | 'run';
}

/** Store the dependents' edges and set each one's state (waiting, or settled at once). */
export async function attachDependencies(
  db: Runner,
  dependents: DependentToAttach[],
  on: Queryable,
): Promise<void> {
  const edges: { job_id: string; dependency_id: string }[] = [];
  for (const dependent of dependents) {
    for (const dependency of dependent.dependsOn)
      edges.push({ job_id: dependent.id, dependency_id: dependency });
  }
  await db.run(
    sql.attachDependencies,
    {
      edges: JSON.stringify(edges),
      dependents: JSON.stringify(dependents.map((d) => ({ job_id: d.id, on_failure: d.onFailure }))),
    },
    on,
  );
}

/** A job's dependencies as they are now, in id order; empty for a job added without any. */
export async function dependenciesOf(db: Runner, id: string, on?: Queryable): Promise<DependencyOutcome[]> {
  const rows = await db.run(sql.dependenciesOf, { id }, on);
  return rows.map((row) => ({
    id: String(row.id),
    queue: row.queue,
    status: row.status,
    output: row.status === null ? null : row.output,
    error: row.error,
  }));
}
