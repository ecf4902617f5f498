import { Tidemark } from '../dist/index.js';
import * as sql from '../dist/storage/sql/retention.js';

const url = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_explain_${process.pid}`;
const tm = await Tidemark.open({ database: url, schema });
const d = tm.internals.storage.driver;
const s = `"${schema}"`;
await d.query(`insert into ${s}.jobs (queue, status, data, output, finished_at, purge_after, retention)
     select 'bench', 'completed', jsonb_build_object('n', g), '{"ok": true}', now() - interval '40 days', now() - interval '10 days' + g * interval '1 millisecond', '{"completed": 2592000}' from generate_series(1, 100000) g`);
await d.exec(`vacuum (analyze) ${s}.jobs`);
const params = { batch_size: 1000, ...sql.CURSOR_START };
const r = await d.query<{ 'QUERY PLAN': string }>(
  `explain (analyze, buffers, timing) ${sql.deleteDueTrees.text(schema)}`,
  sql.deleteDueTrees.values(params),
);
console.log(r.rows.map((x) => x['QUERY PLAN']).join('\n'));
const sig = await d.query<{ 'QUERY PLAN': string }>(
  `explain (analyze) ${sql.deleteConsumedSignals.text(schema)}`,
  sql.deleteConsumedSignals.values({ batch_size: 1000 }),
);
console.log(sig.rows.map((x) => x['QUERY PLAN']).join('\n'));
await d.query(`drop schema ${s} cascade`);
await tm.close();
