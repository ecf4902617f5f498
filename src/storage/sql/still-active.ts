/**
 * "The row is still in an attempt", for statements that find their rows by id. Wrapped in
 * a CASE so the planner cannot answer it by reading every active job through
 * jobs_stalled_idx: statistics taken before a burst of claims say few jobs are active, and
 * that scan then costs a batch of 200 as much as every running job in the cluster plus
 * their dead index entries. The rows are found by primary key instead.
 */
export const STILL_ACTIVE = (alias: string) => `case when ${alias}status = 'active' then true end`;
