// addJob inside your own transaction: the job commits with your rows, or rolls back with them,
// and no worker sees it before the commit.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx examples/add-in-transaction.ts
//   npx tsx examples/add-in-transaction.ts          (no DATABASE_URL: embedded PGlite, in memory)
//
// On PostgreSQL the transaction is a `pg` client between BEGIN and COMMIT, from a pool Tidemark
// shares; on PGlite it is the `tx` of `db.transaction()`. The code in between is the same.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { type CallerTransaction, silentLogger, Tidemark } from 'tidemark';

// This example's table and Tidemark's live in one schema, so dropping it removes all it made.
const schema = process.env.EXAMPLE_SCHEMA ?? 'tidemark_example';

/** Runs `fn` in a transaction of your database: commits when it resolves, rolls back when it throws. */
type InTransaction = <T>(fn: (tx: CallerTransaction) => Promise<T>) => Promise<T>;

interface Setup {
  tm: Tidemark;
  inTransaction: InTransaction;
  close(): Promise<void>;
}

async function onPostgres(url: string): Promise<Setup> {
  const pool = new pg.Pool({ connectionString: url });
  const tm = await Tidemark.open({ database: pool, schema, logger: silentLogger });
  const inTransaction: InTransaction = async (fn) => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      const result = await fn(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    } finally {
      client.release();
    }
  };
  // close() leaves a pool you passed in open: it is yours.
  const close = async () => {
    await tm.close();
    await pool.end();
  };
  return { tm, inTransaction, close };
}

async function onPglite(): Promise<Setup> {
  const db = new PGlite(); // in memory; new PGlite('./data') keeps a folder
  const tm = await Tidemark.open({ database: db, schema, logger: silentLogger });
  const inTransaction: InTransaction = (fn) => db.transaction((tx) => fn(tx));
  const close = async () => {
    await tm.close();
    await db.close();
  };
  return { tm, inTransaction, close };
}

const url = process.env.DATABASE_URL;
console.log(
  url ? 'on PostgreSQL (DATABASE_URL)' : 'on embedded PGlite in memory (set DATABASE_URL for PostgreSQL)',
);
const { tm, inTransaction, close } = url ? await onPostgres(url) : await onPglite();

await inTransaction((tx) =>
  tx.query(`create table if not exists ${schema}.orders (id serial primary key, item text not null)`),
);

type Confirmation = { orderId: number };
tm.createQueue<Confirmation, string>({
  name: 'confirmations',
  handler: async (job) => `confirmation sent for order ${job.data.orderId}`,
});
await tm.worker().start();

/** Your write and the job that follows from it, in one transaction. */
async function placeOrder(tx: CallerTransaction, item: string): Promise<{ orderId: number; jobId: string }> {
  const { rows } = await tx.query(`insert into ${schema}.orders (item) values ($1) returning id`, [item]);
  const orderId = (rows[0] as { id: number }).id;
  const { id: jobId } = await tm.addJob<Confirmation>({ queue: 'confirmations', data: { orderId } }, { tx });
  return { orderId, jobId };
}

// Committed: the order and its job exist together, and a worker runs the job.
const placed = await inTransaction((tx) => placeOrder(tx, 'teapot'));
console.log(`committed: order ${placed.orderId} with job ${placed.jobId}`);
console.log(`job ${placed.jobId}: ${await tm.result<string>(placed.jobId, { timeoutSeconds: 30 })}`);

// Rolled back: neither the order nor its job was ever there.
let attempt = { orderId: 0, jobId: '' };
try {
  await inTransaction(async (tx) => {
    attempt = await placeOrder(tx, 'kettle');
    throw new Error('payment declined');
  });
} catch (error) {
  console.log(`rolled back: ${(error as Error).message}`);
}
const { rows } = await inTransaction((tx) =>
  tx.query(`select id from ${schema}.orders where id = $1`, [attempt.orderId]),
);
const order = rows.length === 0 ? 'absent' : 'present';
const job = (await tm.getJob(attempt.jobId)) === null ? 'absent' : 'present';
console.log(`after the rollback: order ${attempt.orderId} ${order}, job ${attempt.jobId} ${job}`);

await close();
