import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { main } from '../../src/cli/main.js';
import { PermissionDeniedError, Tidemark } from '../../src/index.js';
import { captureIo } from '../support/cli.js';
import { csrfIn, get, post } from '../support/dashboard.js';
import { freshSchema, PG_URL } from '../support/databases.js';
import { describePostgresOnly } from '../support/each-driver.js';
import { fastWorker, waitForStatus } from '../support/jobs.js';

/** The script docs/deployment.md tells an operator to run, as shipped. */
const ROLES_SQL = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'roles.sql'), 'utf8');

/** The test server's URL, logging in as another role. */
function urlAs(role: string, password: string): string {
  const url = new URL(PG_URL);
  url.username = role;
  url.password = password;
  return url.toString();
}

/** The SQLSTATE of an error's cause: what the database said under a PermissionDeniedError. */
function causeState(error: PermissionDeniedError): unknown {
  return (error.cause as { code?: unknown } | undefined)?.code;
}

describePostgresOnly('the roles of docs/roles.sql', () => {
  const schema = freshSchema();
  const password = randomBytes(12).toString('hex');
  const migrator = `${schema}_migrator`;
  const worker = `${schema}_worker`;
  const reader = `${schema}_reader`;
  // Login roles as docs/deployment.md sets them up: a deploy user acting as the migrator, and
  // an application user and a dashboard user that are members of the worker and reader roles.
  const deploy = `${schema}_deploy`;
  const app = `${schema}_app`;
  const viewer = `${schema}_viewer`;
  const admin = new pg.Pool({ connectionString: PG_URL, max: 1 });
  const engines: Tidemark[] = [];

  async function openAs(role: string, options: { migrate?: boolean } = {}): Promise<Tidemark> {
    const tm = await Tidemark.open({ database: urlAs(role, password), schema, ...options });
    engines.push(tm);
    return tm;
  }

  before(async () => {
    const client = await admin.connect();
    try {
      // The script as psql runs it: settings first, then the file, in one session.
      await client.query(`set tidemark.schema = '${schema}'`);
      await client.query(ROLES_SQL);
      // Run twice: the second run changes nothing and fails on nothing.
      await client.query(ROLES_SQL);
    } finally {
      client.release();
    }
    await admin.query(`create role "${deploy}" login password '${password}' in role "${migrator}"`);
    await admin.query(`alter role "${deploy}" set role = '${migrator}'`);
    await admin.query(`create role "${app}" login password '${password}' in role "${worker}"`);
    await admin.query(`create role "${viewer}" login password '${password}' in role "${reader}"`);
  });

  after(async () => {
    for (const tm of engines) await tm.close();
    const roles = [deploy, app, viewer, migrator, worker, reader].map((r) => `"${r}"`).join(', ');
    await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.query(`drop owned by ${roles}`);
    await admin.query(`drop role ${roles}`);
    await admin.end();
  });

  test('the worker role may not create the schema: its migration is refused, naming migrate, nothing written', async () => {
    await assert.rejects(openAs(app), (error: unknown) => {
      assert.ok(error instanceof PermissionDeniedError, String(error));
      assert.equal(error.code, 'PERMISSION_DENIED');
      assert.equal(error.action, 'migrate');
      assert.equal(error.sqlState, '42501');
      assert.match(
        error.message,
        /may not do 'migrate'.*nothing was written: use a role with Tidemark's migrator grants/,
      );
      return true;
    });
    const { rows } = await admin.query(
      `select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1`,
      [schema],
    );
    assert.equal(rows[0].n, 0, 'no table was created');
  });

  test('the migrator role migrates, and owns what it made', async () => {
    const tm = await openAs(deploy);
    await tm.close();
    const { rows } = await admin.query<{ owner: string; n: number }>(
      `select pg_get_userbyid(c.relowner) as owner, count(*)::int as n
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and c.relkind in ('r', 'p') group by 1`,
      [schema],
    );
    assert.equal(rows.length, 1, JSON.stringify(rows));
    assert.equal(rows[0].owner, migrator);
    assert.ok(rows[0].n >= 10, `Tidemark's tables: ${rows[0].n}`);
    // Running the script after the migration grants on what is there (and changes nothing new).
    const client = await admin.connect();
    try {
      await client.query(`set tidemark.schema = '${schema}'`);
      await client.query(ROLES_SQL);
    } finally {
      client.release();
    }
  });

  test('the worker role adds, claims and finishes jobs and runs the retention sweeps, but may not alter the schema', async () => {
    // With migrations on (the default): an up-to-date schema is only read.
    const tm = await openAs(app);
    tm.createQueue({ name: 'mail', handler: async (job) => ({ sent: job.data }) });
    const { id } = await tm.addJob({ queue: 'mail', data: { to: 'a@example.com' } });
    const late = (await tm.addJob({ queue: 'mail', data: {}, delaySeconds: 3600 })).id;
    const work = fastWorker(tm, { queues: ['mail'] });
    await work.start();
    await waitForStatus(tm, id, 'completed');
    await work.stop();
    assert.deepEqual(await tm.result(id), { sent: { to: 'a@example.com' } });
    assert.equal((await tm.cancelJob(late)).status, 'cancelled');

    // Due for retention (the window moved to the past by the test), then swept by the worker.
    await admin.query(`update "${schema}".jobs set purge_after = now() - interval '1 second' where id = $1`, [
      id,
    ]);
    const swept = await tm.sweep();
    assert.ok('jobs' in swept && swept.jobs === 1, JSON.stringify(swept));
    assert.equal(await tm.getJob(id), null);
    assert.equal(await tm.removeJobs({ statuses: ['cancelled'], olderThanSeconds: 0 }), 1);

    const asWorker = new pg.Pool({ connectionString: urlAs(app, password), max: 1 });
    try {
      for (const ddl of [
        `create table "${schema}".other (id int)`,
        `alter table "${schema}".jobs add column other int`,
        `drop table "${schema}".sweeps`,
        `truncate "${schema}".jobs`,
      ]) {
        await assert.rejects(asWorker.query(ddl), (error: unknown) => {
          assert.equal((error as { code?: string }).code, '42501', ddl);
          return true;
        });
      }
    } finally {
      await asWorker.end();
    }
  });

  test('the worker role adds jobs in SQL with add_job, the reader role is refused it (42501)', async () => {
    const tm = await openAs(app);
    tm.createQueue({ name: 'sql-mail' });
    await tm.addJob({ queue: 'sql-mail', data: 'stored first' });
    const asWorker = new pg.Pool({ connectionString: urlAs(app, password), max: 1 });
    const asReader = new pg.Pool({ connectionString: urlAs(viewer, password), max: 1 });
    try {
      const { rows } = await asWorker.query(
        `select id::text as id from "${schema}".add_job('sql-mail', '{"n": 1}')`,
      );
      assert.deepEqual((await tm.getJob(rows[0].id))?.data, { n: 1 });
      await assert.rejects(
        asReader.query(`select * from "${schema}".add_job('sql-mail', '{"n": 2}')`),
        (error: unknown) => {
          assert.equal((error as { code?: string }).code, '42501');
          return true;
        },
      );
    } finally {
      await asWorker.end();
      await asReader.end();
    }
  });

  test('the reader role reads every dashboard page and admin read; a write is a 403 refusal, in the API and the CLI too', async () => {
    const owner = await openAs(app);
    owner.createQueue({ name: 'mail', handler: async () => 'sent' });
    await owner.schedule({ name: 'nightly', cron: '0 3 * * *', queue: 'mail' });
    const { id } = await owner.addJob({ queue: 'mail', data: { to: 'b@example.com' } });

    const tm = await openAs(viewer, { migrate: false });
    assert.equal((await tm.getJob(id))?.status, 'pending');
    assert.equal((await tm.getJobDetail(id))?.job.id, id);
    assert.equal((await tm.listJobs({ queue: 'mail' })).jobs.length, 1);
    assert.equal((await tm.listSchedules()).length, 1);

    const { url } = await tm.dashboard({ port: 0 });
    for (const path of [
      '',
      'jobs',
      `jobs/${id}`,
      'queues/mail',
      'running',
      'schedules',
      'workers',
      'retention',
      'purge',
      'storage',
    ]) {
      const page = await get(`${url}${path}`);
      assert.equal(page.status, 200, `/${path}: ${page.body.slice(0, 400)}`);
    }

    await assert.rejects(tm.cancelJob(id), (error: unknown) => {
      assert.ok(error instanceof PermissionDeniedError, String(error));
      assert.equal(error.sqlState, '42501');
      assert.equal(causeState(error), '42501');
      assert.match(
        error.message,
        /^the database role may not do '\w+' \(permission denied for (table|relation) \w+\)/,
      );
      return true;
    });
    await assert.rejects(tm.addJob({ queue: 'mail', data: {} }), PermissionDeniedError);

    const csrf = csrfIn((await get(`${url}jobs/${id}`)).body);
    const refused = await post(`${url}jobs/${id}/cancel`, { csrf });
    assert.equal(refused.status, 403, refused.body.slice(0, 400));
    assert.match(refused.body, /<h1>Permission denied<\/h1>/);
    assert.match(refused.body, /the database role may not do/);
    assert.equal((await owner.getJob(id))?.status, 'pending', 'nothing changed');

    const stats = captureIo();
    const asViewer = ['--database', urlAs(viewer, password), '--schema', schema];
    assert.equal(await main(['stats', '--json', ...asViewer], stats), 0, stats.err());
    assert.match(stats.out(), /"mail"/);

    const io = captureIo();
    const code = await main(['cancel', id, ...asViewer], io);
    assert.equal(code, 1, io.err());
    assert.match(io.err(), /^tidemark cancel: the database role may not do '\w+' \(permission denied/);
    assert.equal(io.out(), '');
  });

  test('a read-only session is refused the same way (25006), naming the statement', async () => {
    await openAs(app).then((tm) => tm.createQueue({ name: 'mail' }));
    const readOnly = new pg.Pool({
      connectionString: urlAs(app, password),
      options: '-c default_transaction_read_only=on',
      max: 2,
    });
    const tm = await Tidemark.open({ database: readOnly, schema, migrate: false });
    try {
      await assert.rejects(tm.addJob({ queue: 'mail', data: {} }), (error: unknown) => {
        assert.ok(error instanceof PermissionDeniedError, String(error));
        assert.equal(error.sqlState, '25006');
        assert.match(error.message, /^the database is read-only for this role and refused '\w+'/);
        return true;
      });
    } finally {
      await tm.close();
      await readOnly.end();
    }
  });
});
