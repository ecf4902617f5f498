/**
 * A timestamptz as the drivers return it: a Date, except `infinity` and `-infinity`, which
 * arrive as ±Infinity or as text. Only columns that may hold them are typed so (a job's run
 * time, for one, is `infinity` while a workflow waits without a timer); toDate in rows.ts
 * reads all three.
 */
export type Timestamp = Date | number | string;
