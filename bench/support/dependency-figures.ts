/**
 * Job dependencies' cost (figure `dependencies`): the drain of 2,000 no-op jobs, then the same
 * jobs with two dependents waiting on them (1,000 each, the most one add names), in one process
 * on fresh schemas. Besides jobs/s, it counts the statements the worker's process sent per job
 * (the claim and the finishing statements are the same with dependents) and how often the
 * release trigger ran per finishing dependency (PostgreSQL's function statistics, switched on
 * for the bench's own sessions only): each run is one statement over the dependency's edges.
 */
import pg from 'pg';
import { silentLogger, Tidemark } from '../../dist/index.js';
import { CONCURRENCY, type Figures } from './figures.js';
import { BENCH_URL, dropSchema, freshName, settle, withClient } from './postgres.js';
import { rate, until } from './stats.js';

export const DEPENDENCY_JOBS = 2_000;
/** The most jobs one add may name in `dependsOn`. */
const PER_DEPENDENT = 1_000;

/** The bench's database, its sessions counting calls of PL/pgSQL functions. */
const TRACKED_URL = `${BENCH_URL}${BENCH_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent('-c track_functions=pl')}`;

interface DrainFigures {
  jobsPerSecond: number;
  statementsPerJob: number;
  releasesPerDependency: number;
}

/** Count the statements every pg client of this process sends until `stop()`. */
function countStatements(): { stop(): number } {
  const original = pg.Client.prototype.query;
  let n = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    n++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return {
    stop() {
      pg.Client.prototype.query = original;
      return n;
    },
  };
}

async function drain(withDependents: boolean): Promise<DrainFigures> {
  const schema = freshName('bench_tm');
  const tm = await Tidemark.open({ database: TRACKED_URL, schema, logger: silentLogger });
  let closed = false;
  try {
    let done = 0;
    const handler = () => {
      done++;
    };
    tm.createQueue({ name: 'q', handler });
    tm.createQueue({ name: 'after', handler });
    const ids: string[] = [];
    for (let i = 0; i < DEPENDENCY_JOBS; i += PER_DEPENDENT) {
      const added = await tm.addJobs(
        Array.from({ length: PER_DEPENDENT }, (_, k) => ({ queue: 'q', data: { n: i + k } })),
      );
      ids.push(...added.map((job) => job.id));
    }
    let expected = DEPENDENCY_JOBS;
    if (withDependents) {
      for (let i = 0; i < ids.length; i += PER_DEPENDENT) {
        await tm.addJob({ queue: 'after', dependsOn: ids.slice(i, i + PER_DEPENDENT) });
        expected++;
      }
    }
    await settle();
    const statements = countStatements();
    const worker = tm.worker({
      queues: ['q', 'after'],
      concurrency: CONCURRENCY,
      sweep: false,
      uniqueLockSweep: false,
    });
    const started = performance.now();
    await worker.start();
    await until(() => done >= expected);
    const elapsed = performance.now() - started;
    await worker.stop();
    const sent = statements.stop();
    // A session's function statistics reach the shared view when it ends at the latest.
    await tm.close();
    closed = true;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const calls = await withClient(async (client) => {
      const { rows } = await client.query<{ calls: string | null }>(
        `select sum(calls)::text as calls from pg_stat_user_functions
          where schemaname = $1 and funcname = 'release_dependents'`,
        [schema],
      );
      return Number(rows[0]?.calls ?? 0);
    });
    return {
      jobsPerSecond: rate(DEPENDENCY_JOBS, elapsed),
      statementsPerJob: sent / expected,
      releasesPerDependency: calls / DEPENDENCY_JOBS,
    };
  } finally {
    if (!closed) await tm.close();
    await dropSchema(schema);
  }
}

/** The plain drain of 2,000 jobs, then the same 2,000 jobs feeding two dependents. */
export async function dependencyDrain(): Promise<Figures> {
  const plain = await drain(false);
  const dependents = await drain(true);
  return {
    dependents: dependents.jobsPerSecond,
    plain: plain.jobsPerSecond,
    statementsPerJob: dependents.statementsPerJob,
    plainStatementsPerJob: plain.statementsPerJob,
    releasesPerDependency: dependents.releasesPerDependency,
  };
}
