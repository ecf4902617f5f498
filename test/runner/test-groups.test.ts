import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { groupFiles, writeGroup } from '../../scripts/test-groups.mjs';
import { childNodeEnv } from '../support/node-args.js';

const run = promisify(execFile);

/** This file runs compiled (scripts/compile-tests.mjs), or through tsx. */
const COMPILED = import.meta.url.endsWith('.js');
/** The tree this file runs from: the repository, or its compiled mirror. */
const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURES = join(import.meta.dirname, 'fixtures');
/** The repository itself: the compiled mirror links its files there. */
const REPO = dirname(realpathSync(join(ROOT, 'package.json')));

describe('the suite in groups of files, a process each (scripts/test-groups.mjs)', () => {
  test('groups are of about equal time: the slowest file first, each to the group with the least', () => {
    const times: Record<string, number> = { a: 90, b: 60, c: 50, d: 40, e: 30, f: 20, g: 10 };
    const groups = groupFiles(Object.keys(times), 3, (file) => times[file]);
    assert.deepEqual(
      groups.map((group) => [group.files, group.ms]),
      [
        [['a', 'f'], 110],
        [['b', 'e', 'g'], 100],
        [['c', 'd'], 90],
      ],
    );
  });

  test('a file never timed counts as the mean of those timed; never more groups than files', () => {
    const times: Record<string, number | undefined> = { a: 30, b: 10, new: undefined };
    const groups = groupFiles(['new', 'a', 'b'], 5, (file) => times[file]);
    assert.equal(groups.length, 3);
    assert.deepEqual(
      groups.map((group) => group.ms),
      [30, 20, 10],
    );
  });

  test("a run keeps each file's time for the next run's order and groups", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidemark-times-test-'));
    try {
      await run(
        process.execPath,
        [
          join(REPO, 'scripts', 'run-tests.mjs'),
          join(REPO, 'test', 'runner', 'fixtures', 'group-mark.test.ts'),
        ],
        {
          env: childNodeEnv({ TIDEMARK_TEST_DRIVERS: 'pglite', TMPDIR: dir }),
        },
      );
      const kept = JSON.parse(readFileSync(join(dir, 'tidemark-test-times.json'), 'utf8')) as Record<
        string,
        number
      >;
      const [file, ms] = Object.entries(kept).find(([path]) => path.endsWith('group-mark.test.ts')) ?? [];
      assert.ok(file, `the run's file is kept: ${JSON.stringify(kept)}`);
      assert.ok(typeof ms === 'number' && ms > 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a failed run names its failed files last, where a log cut to its tail still shows them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidemark-failed-test-'));
    try {
      const failing = join('test', 'runner', 'fixtures', 'group-fails.test.ts');
      const ran = run(
        process.execPath,
        [
          join(REPO, 'scripts', 'run-tests.mjs'),
          join(REPO, 'test', 'runner', 'fixtures', 'group-mark.test.ts'),
          join(REPO, failing),
        ],
        { env: childNodeEnv({ TIDEMARK_TEST_DRIVERS: 'pglite', TMPDIR: dir }) },
      );
      const failed = await ran.then(
        () => assert.fail('the run passed'),
        (error: { code: number; stdout: string }) => error,
      );
      assert.equal(failed.code, 1);
      const tail = failed.stdout.trimEnd().split('\n').slice(-2);
      assert.deepEqual(tail, ['# files failed: 1', `#   ${failing}`]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a group runs its files one after another in one process, sharing its PGlite; each file's time and failure are its own", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidemark-group-test-'));
    try {
      const files = ['group-mark', 'group-fails', 'group-broken', 'group-finds'].map((name) =>
        join(FIXTURES, `${name}.test.ts`),
      );
      const runnable = (file: string) => (COMPILED ? file.replace(/\.ts$/, '.js') : file);
      const group = writeGroup(dir, 0, files, ROOT, runnable);
      const times = join(dir, 'times.jsonl');
      const reporter = join(ROOT, 'scripts', 'file-times.mjs');
      const ran = await run(
        process.execPath,
        [
          ...(COMPILED ? [] : ['--import', 'tsx']),
          '--test',
          `--test-reporter=${reporter}`,
          '--test-reporter-destination=stdout',
          group,
        ],
        { env: childNodeEnv({ TIDEMARK_TEST_DRIVERS: 'pglite', TIDEMARK_TEST_TIMES: times }) },
      ).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => error,
      );
      assert.equal(ran.code, 1, `a failing file fails the run:\n${ran.stdout}`);
      const lines = readFileSync(times, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(
          (line) => JSON.parse(line) as { file?: string; passed?: boolean; summary?: string; value?: number },
        );
      const rows = lines.filter((row) => row.file);
      const failures = lines.find((row) => row.summary === 'fail')?.value;
      assert.equal(
        failures,
        2,
        `the failing test and the file that does not load count as failures:\n${ran.stdout}`,
      );
      assert.deepEqual(
        rows.map((row) => [row.file?.slice(row.file.indexOf('test/runner/')), row.passed]),
        [
          ['test/runner/fixtures/group-mark.test.ts', true],
          ['test/runner/fixtures/group-fails.test.ts', false],
          ['test/runner/fixtures/group-broken.test.ts', false],
          // The mark the first file left, after that file closed the PGlite as files do.
          ['test/runner/fixtures/group-finds.test.ts', true],
        ],
        ran.stdout,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
