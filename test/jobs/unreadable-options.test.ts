import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { InvalidOptionError, silentLogger, Tidemark } from '../../src/index.js';
import { freshSchema, PG_URL, rawQuery, TEST_DRIVERS } from '../support/databases.js';
import { describeEachDriver } from '../support/each-driver.js';
import { insertJob } from '../support/factory.js';

/**
 * Options that throw when read: a getter, a Proxy whose `get` trap throws, a Proxy whose
 * `ownKeys` trap throws. Each is refused with InvalidOptionError naming the field, the
 * caller's error as `cause`, and nothing is written.
 */
const boom = new Error('boom from the caller');

const getter = <T extends object>(base: T, key: string): T =>
  Object.defineProperty({ ...base }, key, {
    enumerable: true,
    get() {
      throw boom;
    },
  });
const trapGet = <T extends object>(base: T, key: string): T =>
  new Proxy(base, {
    get(target, property, receiver) {
      if (property === key) throw boom;
      return Reflect.get(target, property, receiver);
    },
  });
const trapKeys = <T extends object>(base: T): T =>
  new Proxy(base, {
    ownKeys() {
      throw boom;
    },
  });

/** The unreadable variants of `options`, each with the field its refusal must name. */
function unreadable<T extends object>(
  options: T,
  key: keyof T & string,
  nested: keyof T & string,
  root: string,
): [string, unknown, string][] {
  const inner = options[nested] as object;
  return [
    ['a throwing getter', getter(options, key), key],
    ['a Proxy whose get throws', trapGet(options, key), key],
    ['a Proxy whose ownKeys throws', trapKeys(options), root],
    [
      'a policy with a throwing getter',
      { ...options, [nested]: getter(inner, 'completed') },
      `${nested}.completed`,
    ],
    ['a policy that is a Proxy', { ...options, [nested]: trapKeys(inner) }, nested],
  ];
}

function isRefusal(field: string) {
  return (error: unknown) => {
    assert.ok(error instanceof InvalidOptionError, `not typed: ${String(error)}`);
    assert.equal(error.field, field);
    assert.equal(error.cause, boom);
    assert.match(error.message, new RegExp(`'${field.replace(/[.[\]]/g, '\\$&')}'.*boom from the caller`));
    return true;
  };
}

describeEachDriver('options that throw when read', ({ open }) => {
  test('applyRetention refuses them and re-freezes nothing', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    const id = await insertJob(tm, { queue: 'q', status: 'completed', retention: { completed: 60 } });
    for (const [what, options, field] of unreadable(
      { queue: 'q', policy: { completed: 1, failed: 1 } },
      'queue',
      'policy',
      'options',
    )) {
      await assert.rejects(tm.applyRetention(options as never), isRefusal(field), what);
    }
    assert.deepEqual((await tm.getJob(id))?.retention, { completed: 60 });
  });

  test('addJob refuses them and adds no job', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q' });
    for (const [what, options, field] of unreadable(
      { queue: 'q', data: { n: 1 }, retention: { completed: 1 } },
      'queue',
      'retention',
      'job',
    )) {
      await assert.rejects(tm.addJob(options as never), isRefusal(field), what);
    }
    const [row] = await rawQuery<{ n: number }>(tm, `select count(*)::int as n from "${tm.schema}".jobs`);
    assert.equal(row.n, 0);
  });

  test('createQueue refuses them and neither defines nor stores the queue', async () => {
    const tm = await open({ logger: silentLogger });
    for (const [what, options, field] of unreadable(
      { name: 'unread', retention: { completed: 1 } },
      'name',
      'retention',
      'queue',
    )) {
      assert.throws(() => tm.createQueue(options as never), isRefusal(field), what);
    }
    tm.createQueue({ name: 'read' });
    assert.deepEqual(
      (await tm.listQueues()).map((q) => q.name),
      ['read'],
    );
  });
});

test('Tidemark.open refuses them and creates nothing', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'tm-unreadable-'));
  after(() => rmSync(parent, { recursive: true, force: true }));
  const targets: { database: string; schema: string }[] = [
    { database: join(parent, 'db'), schema: 'tidemark' },
    ...(TEST_DRIVERS.includes('pg') ? [{ database: PG_URL, schema: freshSchema() }] : []),
  ];
  for (const target of targets) {
    for (const [what, options, field] of unreadable(
      { ...target, logger: silentLogger, retention: { completed: 1 } },
      'schema',
      'retention',
      'options',
    )) {
      await assert.rejects(Tidemark.open(options as never), isRefusal(field), `${what} (${target.database})`);
    }
  }
  assert.equal(existsSync(join(parent, 'db')), false, 'the embedded folder was created');
  if (TEST_DRIVERS.includes('pg')) {
    const tm = await Tidemark.open({ database: PG_URL, schema: freshSchema(), logger: silentLogger });
    try {
      const rows = await rawQuery(tm, 'select 1 from information_schema.schemata where schema_name = $1', [
        targets[1].schema,
      ]);
      assert.deepEqual(rows, [], 'the schema was created');
    } finally {
      const { schema } = tm;
      await rawQuery(tm, `drop schema if exists "${schema}" cascade`);
      await tm.close();
    }
  }
});
