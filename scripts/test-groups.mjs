// Groups the suite's test files into a few processes for scripts/run-tests.mjs. Each file's own
// process spent about 2 s of CPU before its first test (node, the engine's modules, a PGlite
// booted from the cached dump), against 1 to 6 s for the tests of most files; on two cores
// that start-up was a third of the suite. A group is one process: it imports its files as it
// starts, each inside a `describe` named by its path (node 20 builds a suite at once), runs
// their tests one file after another, and shares one PGlite between them
// (test/support/databases.ts, `shareAcrossFiles`). A file a group would not suit (one that
// changes the process for the other files) is named `alone` in test/lanes.txt.
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The name every group's file has, so the reporter tells a group from a test file. */
export const GROUP_FILE = /tidemark-group-\d+\.mjs$/;

/**
 * Split `files` into `count` groups of about equal time: the slowest file first, each into
 * the group with the least time so far (a file never timed counts as the mean of those timed).
 */
export function groupFiles(files, count, timeOf) {
  const known = files.map(timeOf).filter((ms) => ms !== undefined);
  const mean = known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : 1;
  const timed = files.map((file) => ({ file, ms: timeOf(file) ?? mean })).sort((a, b) => b.ms - a.ms);
  const groups = Array.from({ length: Math.min(count, files.length) }, () => ({ files: [], ms: 0 }));
  for (const { file, ms } of timed) {
    const least = groups.reduce((best, group) => (group.ms < best.ms ? group : best));
    least.files.push(file);
    least.ms += ms;
  }
  return groups.filter((group) => group.files.length > 0);
}

/**
 * Write a group's file into `dir`: the support module told first that files share the process,
 * then each file imported inside a `describe` named by its path from `repo`, where a file that
 * fails to load fails a test. `runnable` maps a
 * source file of `repo` to what the process loads (its compiled twin, in a compiled run).
 * Returns the group file's path.
 */
export function writeGroup(dir, index, files, repo, runnable) {
  const path = join(dir, `tidemark-group-${index}.mjs`);
  const support = JSON.stringify(runnable(join(repo, 'test', 'support', 'databases.ts')));
  const lines = [
    "import { after, describe, test } from 'node:test';",
    `import { closeProcessDatabases, shareAcrossFiles } from ${support};`,
    '',
    'shareAcrossFiles();',
    'after(closeProcessDatabases);',
    '// A file that fails to load fails a test, as a file of its own process would, not its suite alone.',
    "const failedToLoad = (error) => test('the file loads', () => { throw error; });",
    ...files.map(
      (file) =>
        `describe(${JSON.stringify(relative(repo, file))}, async () => {\n` +
        `  await import(${JSON.stringify(runnable(file))}).catch(failedToLoad);\n});`,
    ),
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}
