import { defineQuery, type NoRows } from './define-query.js';
import { JOB_COLUMNS, type JobRow } from './job-columns.js';
import { CLAIMABLE, FLOW_QUEUE, READY_QUEUES } from './worker.js';

/*
 * The statements of `tidemark/testing`. The test clock in SQL: Production statements read the database's own time (now(),
 * clock_timestamp()) and pay nothing for this file. An engine opened by the test kit has every
 * statement's reads of the time, its migrations' included, rewritten to one function that
 * returns the kit's time from a one-row table: jobs become due, locks lapse and windows close
 * when the test moves the clock, never on their own.
 */

/** Every way a statement of this package reads the time. */
const TIME_READS =
  /\b(?:now|clock_timestamp|statement_timestamp|transaction_timestamp)\(\)|\b(?:current_timestamp|localtimestamp)\b/gi;

/** The function the test clock puts in place of each read of the time. */
const TEST_NOW = 'tidemark_test_now()';

/** `text` (schema already bound) with each read of the time replaced by the test clock's. */
export function onTestClock(text: string, schema: string): string {
  return text.replace(TIME_READS, `"${schema}".${TEST_NOW}`);
}

/** Whether `text` still reads the database's own time. */
export function readsDatabaseTime(text: string): boolean {
  return new RegExp(TIME_READS.source, 'i').test(text);
}

/** The clock's table and function, made before the migrations (column defaults call it). */
export const INSTALL_TEST_CLOCK = /* sql */ `
create table if not exists /*schema*/tidemark_test_clock (
  id int primary key check (id = 1),
  at timestamptz not null
);
create or replace function /*schema*/${TEST_NOW} returns timestamptz
  language sql stable as $$ select at from /*schema*/tidemark_test_clock where id = 1 $$;`;

/** Set the test clock to @at. */
export const setTestClock = defineQuery<{ at: Date }, NoRows>(
  'setTestClock',
  /* sql */ `
  insert into /*schema*/tidemark_test_clock (id, at) values (1, @at)
  on conflict (id) do update set at = excluded.at`,
);

/**
 * How many jobs of @queues a worker could claim now: paused queues count none, and jobs with a
 * key or under a global limit count as the claim would take them (flow_candidates, which
 * leaves out paused keys and keys at their limit), so a blocked key reads as idle.
 */
export const countClaimableJobs = defineQuery<{ queues: string[] }, { n: number }>(
  'countClaimableJobs',
  /* sql */ `
  with ${READY_QUEUES}
  select ((select count(*) from /*schema*/jobs j join ready_queues r on r.name = j.queue
            where not r.limited and j.key is null and ${CLAIMABLE})
        + (select count(*) from /*schema*/flow_candidates(
             array(select r.name from ready_queues r where ${FLOW_QUEUE('r')}),
             100000)))::int as n`,
);

/** The jobs of @queue, oldest first, @status only when given. */
export const jobsOfQueue = defineQuery<{ queue: string; status: string | null }, JobRow>(
  'jobsOfQueue',
  /* sql */ `
  select ${JOB_COLUMNS} from /*schema*/jobs
   where queue = @queue and (@status::text is null or status = @status::text)
   order by id`,
);
