// addJob inside a transaction: the job commits with your rows, or rolls back with them,
// and no worker sees it before the commit.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx examples/add-in-transaction.ts
//   npx tsx examples/add-in-transaction.ts          (no DATABASE_URL: embedded PGlite, in memory)
//
// `tm.transaction(fn)` opens the transaction on Tidemark's own database: a client of its pool
// between BEGIN and COMMIT on PostgreSQL, a PGlite transaction on the embedded database. The code
// is the same on both. With a `pg.Pool` or a PGlite instance of your own, `{ tx }` also takes a
// `pg` client inside BEGIN, or the `tx` of `db.transaction()`.
import { type Queryable, silentLogger, Tidemark } from 'tidemark';

// This example's table and Tidemark's live in one schema, so dropping it removes all it made.
const schema = process.env.EXAMPLE_SCHEMA ?? 'tidemark_example';

const url = process.env.DATABASE_URL;
console.log(
  url ? 'on PostgreSQL (DATABASE_URL)' : 'on embedded PGlite in memory (set DATABASE_URL for PostgreSQL)',
);
const tm = await Tidemark.open({ database: url ?? 'memory://', schema, logger: silentLogger });

await tm.transaction((tx) =>
  tx.query(`create table if not exists ${schema}.orders (id serial primary key, item text not null)`),
);

type Confirmation = { orderId: number };
tm.createQueue<Confirmation, string>({
  name: 'confirmations',
  handler: async (job) => `confirmation sent for order ${job.data.orderId}`,
});
await tm.worker().start();

/** Your write and the job that follows from it, in one transaction. */
async function placeOrder(tx: Queryable, item: string): Promise<{ orderId: number; jobId: string }> {
  const { rows } = await tx.query<{ id: number }>(
    `insert into ${schema}.orders (item) values ($1) returning id`,
    [item],
  );
  const orderId = rows[0].id;
  const { id: jobId } = await tm.addJob<Confirmation>({ queue: 'confirmations', data: { orderId } }, { tx });
  return { orderId, jobId };
}

// Committed: the order and its job exist together, and a worker runs the job.
const placed = await tm.transaction((tx) => placeOrder(tx, 'teapot'));
console.log(`committed: order ${placed.orderId} with job ${placed.jobId}`);
console.log(`job ${placed.jobId}: ${await tm.result<string>(placed.jobId, { timeoutSeconds: 30 })}`);

// Rolled back: neither the order nor its job was ever there.
let attempt = { orderId: 0, jobId: '' };
try {
  await tm.transaction(async (tx) => {
    attempt = await placeOrder(tx, 'kettle');
    throw new Error('payment declined');
  });
} catch (error) {
  console.log(`rolled back: ${(error as Error).message}`);
}
const { rows } = await tm.transaction((tx) =>
  tx.query(`select id from ${schema}.orders where id = $1`, [attempt.orderId]),
);
const order = rows.length === 0 ? 'absent' : 'present';
const job = (await tm.getJob(attempt.jobId)) === null ? 'absent' : 'present';
console.log(`after the rollback: order ${attempt.orderId} ${order}, job ${attempt.jobId} ${job}`);

await tm.close();
