// A test reporter for scripts/run-tests.mjs: node's own output unchanged (spec on a terminal,
// TAP otherwise, as node chooses when no reporter is named), and one line per test file in the
// file named by TIDEMARK_TEST_TIMES: its path, wall time in ms and whether it passed, as JSON.
// node's runner reports each file as a top-level test named by its path once the file's
// process has exited, so that test's duration is the file's time, boot and teardown included.
// The closing summary's counts (tests, pass, fail...) go there too, one line per run.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { spec as Spec, tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';
import { GROUP_FILE } from './test-groups.mjs';

/** The repository, which a group names its files from. */
const REPO = fileURLToPath(new URL('..', import.meta.url));

/** The counts node's runner closes with, in its order. */
export const SUMMARY = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms'];

export default async function* fileTimes(source) {
  const out = process.env.TIDEMARK_TEST_TIMES;
  async function* recorded() {
    for await (const event of source) {
      const { data } = event;
      const file = out && event.type === 'test:complete' ? fileOf(data) : null;
      if (file) {
        const line = { file, ms: Math.round(data.details.duration_ms), passed: data.details.passed };
        appendFileSync(out, `${JSON.stringify(line)}\n`);
      }
      if (out && event.type === 'test:diagnostic' && data.nesting === 0) {
        const [name, value] = String(data.message).split(' ');
        if (SUMMARY.includes(name))
          appendFileSync(out, `${JSON.stringify({ summary: name, value: Number(value) })}\n`);
      }
      yield event;
    }
  }
  if (process.stdout.isTTY) yield* Readable.from(recorded()).pipe(new Spec());
  else yield* tap(recorded());
}

/**
 * The test file a completed test stands for, or null. node's runner reports each file it ran
 * as a test named by the file's path, and a group (scripts/test-groups.mjs) like any file;
 * the group's own entry stands for none, and each of its `describe`s, named by a file's path
 * from the repository, for that file: its tests' time, the process's boot not included.
 */
function fileOf(data) {
  if (data.nesting !== 0 || !data.file) return null;
  if (!GROUP_FILE.test(data.file)) return data.name === data.file ? data.file : null;
  return data.name === data.file ? null : join(REPO, data.name);
}

/** The lines of a table of the times of `files` (rows with a file), slowest first, paths from `root`. */
export function timesTable(files, root) {
  const rows = [...files].sort((a, b) => b.ms - a.ms);
  const total = rows.reduce((sum, row) => sum + row.ms, 0);
  const seconds = (ms) => (ms / 1000).toFixed(1).padStart(7);
  return [
    `test files by time, slowest first (${rows.length} files):`,
    ...rows.map((row) => `${seconds(row.ms)} s  ${relative(row.file, root)}${row.passed ? '' : '  FAILED'}`),
    `${seconds(total)} s  total of the files' times (they run side by side: wall time is less)`,
  ];
}

function relative(file, root) {
  return file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}

/** The closing summary of several runs from their `rows`: each count summed, in node's order and format. */
export function summaryLines(rows) {
  const totals = new Map();
  for (const row of rows) {
    if (row.summary) totals.set(row.summary, (totals.get(row.summary) ?? 0) + row.value);
  }
  return SUMMARY.filter((name) => totals.has(name)).map((name) => `${name} ${totals.get(name)}`);
}
