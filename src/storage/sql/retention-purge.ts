import { defineQuery, defineSizedQuery } from './define-query.js';
import { NEEDED } from './dependencies.js';
import { GATE_STATE, type GateRow } from './gate.js';
import { QUEUE_HELD } from './held.js';
import {
  BATCH,
  type BatchParams,
  type BatchRules,
  CURSOR,
  type CursorRow,
  FILTER_ONLY,
  FROM_LAST,
  PINNED,
  TOP_FREE,
} from './retention-batch.js';

/**
 * Manual purge (R10): a flat cutoff on finished_at that ignores frozen windows but keeps
 * R1 (only finished jobs), R3 (whole trees: every member finished before the cutoff, in
 * one of the listed statuses), R4 (no member pinned by a live unique lock) and holds.
 * Same shape as the sweep, driven by the finished_at index.
 */
const CUTOFF = /* sql */ `now() - @older_than_seconds * interval '1 second'`;

const PURGE: BatchRules = {
  scanned: /* sql */ `scanned as materialized (
    select r.id, r.finished_at as key from /*schema*/jobs r
     where r.finished_at <= ${CUTOFF}
       and (r.finished_at, r.id) > (@after::timestamptz, @after_id::bigint)
     order by r.finished_at, r.id
     limit @batch_size
  )`,
  keyColumn: 'finished_at',
  top: (r) => `${r}.root_id is null
     and ${FILTER_ONLY(`${r}.finished_at <= ${CUTOFF}`)}
     and ${FILTER_ONLY(`${r}.status = any(@statuses::text[])`)}
     and (@queue::text is null or ${r}.queue = @queue::text)
     and ${TOP_FREE(r)}`,
  memberKeeps: (m) => `(${m}.finished_at is null
     or ${m}.finished_at > ${CUTOFF}
     or ${m}.status <> all(@statuses::text[])
     or ${PINNED(m)}
     or ${QUEUE_HELD(m)}
     or ${NEEDED(m)})`,
  memberStill: (m) => `${m}.status = any(@statuses::text[]) and ${m}.finished_at <= ${CUTOFF}`,
};

/** A top that the purge removes with its whole tree, for counting (read from the finished_at index). */
const PURGE_FILTER = /* sql */ `r.finished_at <= ${CUTOFF} and ${PURGE.top('r')}
     and not exists (select 1 from /*schema*/jobs m where m.root_id = r.id and ${PURGE.memberKeeps('m')})`;

export interface PurgeParams extends Record<string, unknown> {
  queue: string | null;
  statuses: string[];
  older_than_seconds: number;
}

export const purgeFinished = defineSizedQuery<PurgeParams & BatchParams, CursorRow & GateRow & { n: number }>(
  'purgeFinished',
  /* sql */ `
  with ${BATCH(PURGE)}
  select ${CURSOR}, ${GATE_STATE}, (select count(*) from removed)::int as n
  ${FROM_LAST}`,
);

export const countPurgeable = defineQuery<PurgeParams, { n: number }>(
  'countPurgeable',
  /* sql */ `
  with tops as (select r.id from /*schema*/jobs r where ${PURGE_FILTER})
  select count(*)::int as n from /*schema*/jobs j
   where j.id in (select id from tops) or j.root_id in (select id from tops)`,
);
