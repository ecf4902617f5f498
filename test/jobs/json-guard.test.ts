import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidOptionError, MAX_JSON_DEPTH, silentLogger, type Tidemark } from '../../src/index.js';
import { describeEachDriver } from '../support/each-driver.js';
import { countRows, fastWorker, waitForStatus } from '../support/jobs.js';

/** Arrays nested `depth` levels: `[[[…]]]`, built without recursion. */
function deepArrays(depth: number): unknown {
  let value: unknown = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

/** Objects nested `depth` levels: `{ a: { a: … } }`. */
function deepObjects(depth: number): unknown {
  let value: unknown = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

const boom = new Error('boom');
const throwBoom = () => {
  throw boom;
};

interface Shape {
  name: string;
  value: () => unknown;
  /** Where the refusal points, below the field (`data`, `payload` …). */
  at: string;
  /** The caller's error, when one was thrown. */
  cause?: unknown;
}

/** A class without toJSON: JSON.stringify would keep its fields but lose what it is. */
class Account {
  constructor(readonly name: string) {}
  get label(): string {
    return `account ${this.name}`;
  }
}

const TOO_DEEP_ARRAY = '[0]'.repeat(MAX_JSON_DEPTH);
const TOO_DEEP_OBJECT = '.a'.repeat(MAX_JSON_DEPTH);

/** Values JSON.stringify cannot serialise, or only by running code that throws. */
const REFUSED: Shape[] = [
  { name: 'arrays nested 5,000 deep', value: () => deepArrays(5_000), at: TOO_DEEP_ARRAY },
  { name: 'arrays nested 100,000 deep', value: () => deepArrays(100_000), at: TOO_DEEP_ARRAY },
  { name: 'objects nested 5,000 deep', value: () => deepObjects(5_000), at: TOO_DEEP_OBJECT },
  { name: 'objects nested 100,000 deep', value: () => deepObjects(100_000), at: TOO_DEEP_OBJECT },
  {
    name: 'objects nested one level too deep',
    value: () => deepObjects(MAX_JSON_DEPTH + 1),
    at: TOO_DEEP_OBJECT,
  },
  {
    name: 'a getter that throws',
    value: () => ({
      a: {
        get b() {
          return throwBoom();
        },
      },
    }),
    at: '.a.b',
    cause: boom,
  },
  {
    name: 'a Proxy whose ownKeys trap throws',
    value: () => ({ list: [1, 2, new Proxy({}, { ownKeys: throwBoom })] }),
    at: '.list[2]',
    cause: boom,
  },
  {
    name: 'a Proxy whose get trap throws',
    value: () => ({ p: new Proxy({ x: 1 }, { get: throwBoom }) }),
    at: '.p',
    cause: boom,
  },
  {
    name: 'a Proxy of an array whose has trap throws',
    value: () => ({ p: new Proxy([1, 2], { has: throwBoom }) }),
    at: '.p[0]',
    cause: boom,
  },
  {
    name: 'a Proxy whose getOwnPropertyDescriptor trap throws',
    value: () => [new Proxy({ x: 1 }, { getOwnPropertyDescriptor: throwBoom })],
    at: '[0]',
    cause: boom,
  },
  {
    name: 'a revoked Proxy',
    value: () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return { r: proxy };
    },
    at: '.r',
  },
  { name: 'a toJSON that throws', value: () => ({ when: { toJSON: throwBoom } }), at: '.when', cause: boom },
  { name: 'a Map', value: () => ({ m: new Map([['a', 1]]) }), at: '.m' },
  { name: 'a Map at the top', value: () => new Map([['a', 1]]), at: '' },
  { name: 'a Set in an array', value: () => ({ tags: ['x', new Set([1, 2])] }), at: '.tags[1]' },
  { name: 'a class instance without toJSON', value: () => ({ user: new Account('ada') }), at: '.user' },
  { name: 'an Error', value: () => ({ why: new Error('no') }), at: '.why' },
  { name: 'a toJSON that gives a Map', value: () => ({ x: { toJSON: () => new Map() } }), at: '.x' },
  {
    name: 'objects shared so often that the text would be astronomically large',
    value: () => {
      let value: unknown = {};
      for (let i = 0; i < 60; i++) value = { a: value, b: value };
      return value;
    },
    at: '',
  },
];

/** The call refused the value with InvalidOptionError naming where, its cause the caller's error. */
async function assertRefused(call: Promise<unknown>, shape: Shape, field: string): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof InvalidOptionError, `${shape.name}: ${String(error)}`);
    assert.equal(error.field, `${field}${shape.at}`, shape.name);
    if (shape.cause !== undefined) assert.equal(error.cause, shape.cause, shape.name);
    return true;
  });
}

async function assertNothingWritten(tm: Tidemark): Promise<void> {
  for (const table of ['jobs', 'signals', 'schedules', 'checkpoints']) {
    assert.equal(await countRows(tm, table), 0, table);
  }
}

describeEachDriver('JSON that cannot be read safely', ({ open }) => {
  test('addJob refuses each shape with InvalidOptionError naming where, and writes nothing', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    for (const shape of REFUSED) {
      await assertRefused(tm.addJob({ queue: 'q', data: shape.value() }), shape, 'data');
      await assertRefused(
        tm.addJobs([{ queue: 'q' }, { queue: 'q', data: shape.value() }]),
        shape,
        'jobs[1].data',
      );
    }
    await assertNothingWritten(tm);
  });

  test('signal payloads and schedule data are refused the same way', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    for (const shape of REFUSED) {
      await assertRefused(tm.signal('1', 'go', shape.value()), shape, 'payload');
      await assertRefused(
        tm.schedule({ name: 's', cron: '* * * * *', queue: 'q', data: shape.value() }),
        shape,
        'data',
      );
    }
    await assertNothingWritten(tm);
  });

  test('a handler output too deep, or with a throwing getter, fails the job with that error', async () => {
    const tm = await open({ logger: silentLogger });
    const getterShape = REFUSED.find((shape) => shape.name === 'a getter that throws') as Shape;
    const outputs = [deepArrays(100_000), getterShape.value()];
    tm.createQueue({ name: 'q', maxAttempts: 1, handler: (job) => outputs[job.data as number] });
    const [deep, getter] = await tm.addJobs([
      { queue: 'q', data: 0 },
      { queue: 'q', data: 1 },
    ]);
    await fastWorker(tm).start();
    const deepJob = await waitForStatus(tm, deep.id, 'failed');
    assert.equal(deepJob.error?.name, 'InvalidOptionError');
    assert.equal(deepJob.error?.field, `output${TOO_DEEP_ARRAY}`);
    const getterJob = await waitForStatus(tm, getter.id, 'failed');
    assert.equal(getterJob.error?.name, 'InvalidOptionError');
    assert.equal(getterJob.error?.field, 'output.a.b');
  });

  test(`${MAX_JSON_DEPTH} levels are stored and read back whole`, async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const [arrays, objects] = await tm.addJobs([
      { queue: 'q', data: deepArrays(MAX_JSON_DEPTH) },
      { queue: 'q', data: deepObjects(MAX_JSON_DEPTH) },
    ]);
    assert.deepEqual((await tm.getJob(arrays.id))?.data, deepArrays(MAX_JSON_DEPTH));
    assert.deepEqual((await tm.getJob(objects.id))?.data, deepObjects(MAX_JSON_DEPTH));
  });

  test('each getter, trap and toJSON runs once: what was checked is what is stored', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    let reads = 0;
    const hole: number[] = new Array(3);
    hole[0] = 1;
    hole[2] = 3;
    // Storable on the first read only: a second read would give text jsonb refuses.
    const data = {
      get name() {
        reads++;
        return reads === 1 ? 'first' : 'nul \u0000 after the check';
      },
      when: { toJSON: () => (reads === 1 ? 'checked' : 1n) },
      boxed: [Object('s'), Object(2), Object(false)],
      proxy: new Proxy({ x: 1 }, { getPrototypeOf: throwBoom }),
      hole,
      ['__proto__']: 'an ordinary key',
    };
    const { id } = await tm.addJob({ queue: 'q', data });
    assert.equal(reads, 1);
    assert.deepEqual((await tm.getJob(id))?.data, {
      name: 'first',
      when: 'checked',
      boxed: ['s', 2, false],
      proxy: { x: 1 },
      hole: [1, null, 3],
      ['__proto__']: 'an ordinary key',
    });
  });

  test('a step result is refused the same way and fails the workflow with that error', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        await ctx.step('deep', () => deepObjects(5_000));
      },
    });
    const { id } = await tm.addJob({ queue: 'wf' });
    await fastWorker(tm).start();
    const job = await waitForStatus(tm, id, 'failed');
    assert.equal(job.error?.name, 'InvalidOptionError');
    assert.equal(job.error?.field, `step 'deep' result${TOO_DEEP_OBJECT}`);
    assert.equal(await countRows(tm, 'checkpoints', "kind <> 'step-failed'"), 0);
  });

  test('a handler output or step result holding a Map, Set or class instance fails the job naming where; no checkpoint', async () => {
    const tm = await open({ logger: silentLogger });
    tm.createQueue({ name: 'q', maxAttempts: 1, handler: () => ({ totals: new Map([['a', 1]]) }) });
    tm.createQueue({
      name: 'wf',
      maxAttempts: 1,
      handler: async (_job, ctx) => {
        await ctx.step('load', () => ({ seen: new Set([1]) }));
      },
    });
    tm.createQueue({ name: 'cls', maxAttempts: 1, handler: () => [new Account('ada')] });
    const [plain, workflow, instance] = await tm.addJobs([{ queue: 'q' }, { queue: 'wf' }, { queue: 'cls' }]);
    await fastWorker(tm).start();
    const expected: [string, string, string][] = [
      [plain.id, 'output.totals', 'a Map'],
      [workflow.id, "step 'load' result.seen", 'a Set'],
      [instance.id, 'output[0]', 'an instance of Account'],
    ];
    for (const [id, field, got] of expected) {
      const job = await waitForStatus(tm, id, 'failed');
      assert.equal(job.error?.name, 'InvalidOptionError', field);
      assert.equal(job.error?.field, field);
      assert.match(job.error?.message ?? '', new RegExp(`got "${got}"`), field);
      assert.equal(job.output, null, `${field}: no output stored`);
    }
    assert.equal(await countRows(tm, 'checkpoints', "kind <> 'step-failed'"), 0);
  });

  test('what JSON coercion keeps: a Date becomes its ISO string, undefined is dropped from objects and refused in arrays', async () => {
    const tm = await open();
    tm.createQueue({ name: 'q' });
    const when = new Date('2026-12-01T10:00:00.000Z');
    const data = {
      when,
      gone: undefined,
      list: [1, null, 3],
      bare: Object.assign(Object.create(null) as object, { a: 1 }),
      money: { toJSON: () => ({ cents: 100 }) },
    };
    const { id } = await tm.addJob({ queue: 'q', data });
    assert.deepEqual((await tm.getJob(id))?.data, {
      when: '2026-12-01T10:00:00.000Z',
      list: [1, null, 3],
      bare: { a: 1 },
      money: { cents: 100 },
    });
    // JSON.stringify would write null for it: not what was given, so it is refused.
    await assert.rejects(tm.addJob({ queue: 'q', data: { list: [1, undefined] } }), (error: unknown) => {
      assert.ok(error instanceof InvalidOptionError);
      assert.equal(error.field, 'data.list[1]');
      return true;
    });
  });
});
