import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { sourceFiles } from '../support/source-files.js';

/**
 * The layers of src/, bottom first (docs/decisions.md, Layout). A room is a folder under src/
 * or a file directly in it; a room may import its own layer and those below.
 */
const LAYERS: string[][] = [
  ['errors', 'errors.ts', 'job-status.ts', 'log'],
  ['model'],
  ['storage'],
  ['options', 'engine-core.ts'],
  ['retention', 'metrics', 'tracing', 'engine-handle.ts', 'audit'],
  ['intake', 'jobs', 'queues', 'schedule', 'events.ts', 'maintenance'],
  ['workflow', 'engine.ts'],
  ['worker'],
  ['admin', 'http'],
  ['dashboard', 'http-api'],
  [
    'tidemark.ts',
    'audit-calls.ts',
    'job-action-calls.ts',
    'job-query-calls.ts',
    'key-calls.ts',
    'limiter-calls.ts',
    'retention-calls.ts',
    'schedule-calls.ts',
  ],
  ['cli', 'testing', 'index.ts', 'require.cts', 'option-sets.ts'],
];

/**
 * The upward imports that stay, all type-only (erased at run time), each with its reason in
 * docs/decisions.md: a part below names a type whose home is the part that defines it.
 */
const ALLOWED_UPWARD = [
  'src/engine-core.ts -> src/events.ts',
  'src/engine-core.ts -> src/queues/queue-registry.ts',
  'src/engine-core.ts -> src/retention/archive.ts',
  'src/options/open-options.ts -> src/retention/archive.ts',
  'src/queues/queue-handle.ts -> src/workflow/signal.ts',
  'src/queues/queue-options.ts -> src/workflow/job-context.ts',
  'src/queues/typed-queue.ts -> src/workflow/job-context.ts',
];

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every relative import, re-export and import() of a file, type-only or not. */
function edgesOf(file: string, text = readFileSync(file, 'utf8')): Edge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    if (!specifier.startsWith('.')) return;
    const to = normalize(join(dirname(file), specifier)).replace(/\.(c?)js$/, '.$1ts');
    edges.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function layerOf(file: string): number {
  const room = relative('src', file).split(/[\\/]/)[0];
  const layer = LAYERS.findIndex((rooms) => rooms.includes(room));
  assert.notEqual(
    layer,
    -1,
    `${file} is in no layer: add its room '${room}' to LAYERS and docs/decisions.md`,
  );
  return layer;
}

const edges = sourceFiles('src').flatMap((file) => edgesOf(file));

test('every upward import is type-only and one of the listed few', () => {
  const upward = edges.filter((edge) => layerOf(edge.to) > layerOf(edge.from));
  const runtime = upward.filter((edge) => !edge.typeOnly).map((edge) => `${edge.from} -> ${edge.to}`);
  assert.deepEqual(runtime, [], 'an import that runs at load time points up a layer');
  const listed = upward.map((edge) => `${edge.from} -> ${edge.to}`).sort();
  assert.deepEqual([...new Set(listed)], [...ALLOWED_UPWARD].sort());
});

/** Each loop of load-time imports, as the files it passes through. */
function circlesOf(all: Edge[]): string[] {
  const graph = new Map<string, string[]>();
  for (const edge of all.filter((e) => !e.typeOnly))
    graph.set(edge.from, [...(graph.get(edge.from) ?? []), edge.to]);
  const state = new Map<string, 'open' | 'done'>();
  const circles: string[] = [];
  const walk = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else if (state.get(next) === undefined) walk(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) walk(file, [file]);
  return circles;
}

/** The door to the database: outside storage/, these are the only modules of it imported. */
const DOOR = ['src/storage/storage.ts', 'src/storage/open-storage.ts'];

/** Imports past the door, and statements run (`x.query(…)`), in files outside storage/. */
function pastTheDoor(file: string, text = readFileSync(file, 'utf8')): string[] {
  if (file.startsWith(`src${sep}storage${sep}`) || file.startsWith('src/storage/')) return [];
  const found = edgesOf(file, text)
    .filter((edge) => layerOf(edge.to) === layerOf('src/storage/storage.ts') && !DOOR.includes(edge.to))
    .map((edge) => `${file} imports ${edge.to}`);
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'query'
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1} runs a statement`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('outside storage/, no file runs a statement or imports past the door', () => {
  assert.deepEqual(
    sourceFiles('src').flatMap((file) => pastTheDoor(file)),
    [],
  );
});

test('the door check sees a statement run and an import past the door', () => {
  const probe = [
    "import { getJob } from '../storage/sql/jobs.js';",
    "import { runnerOf } from '../storage/storage-internals.js';",
    "import type { Storage } from '../storage/storage.js';",
    'export const run = (tx: { query(text: string): unknown }) => tx.query("select 1");',
  ].join('\n');
  assert.deepEqual(pastTheDoor('src/jobs/probe.ts', probe), [
    'src/jobs/probe.ts imports src/storage/sql/jobs.ts',
    'src/jobs/probe.ts imports src/storage/storage-internals.ts',
    'src/jobs/probe.ts:4 runs a statement',
  ]);
  assert.deepEqual(pastTheDoor('src/storage/probe.ts', probe), []);
});

test('no import circle among the modules a process loads', () => {
  assert.deepEqual(circlesOf(edges), []);
});

test('the checks see a wrong import: upward at load time, and a circle', () => {
  const probe = edgesOf(
    'src/storage/probe.ts',
    [
      "import { Worker } from '../worker/worker.js';",
      "import type { JobDetail } from '../jobs/job-detail.js';",
      "import { type Job, checkId } from '../options/check.js';",
      "export { main } from '../cli/main.js';",
      "const dashboard = () => import('../dashboard/index.js');",
    ].join('\n'),
  );
  assert.deepEqual(
    probe.map((edge) => [edge.to, edge.typeOnly, layerOf(edge.to) > layerOf(edge.from)]),
    [
      ['src/worker/worker.ts', false, true],
      ['src/jobs/job-detail.ts', true, true],
      ['src/options/check.ts', false, true],
      ['src/cli/main.ts', false, true],
      ['src/dashboard/index.ts', false, true],
    ],
  );
  const loop = [
    ...edgesOf('src/a.ts', "import { b } from './b.js';"),
    ...edgesOf('src/b.ts', "import { a } from './a.js';"),
  ];
  assert.deepEqual(circlesOf(loop), ['src/a.ts -> src/b.ts -> src/a.ts']);
  assert.deepEqual(circlesOf(loop.map((edge) => ({ ...edge, typeOnly: true }))), []);
});

test('src/http sits below the dashboard: an import of the dashboard from it points up', () => {
  const probe = edgesOf('src/http/probe.ts', "import { html } from '../dashboard/html.js';");
  assert.deepEqual(
    probe.map((edge) => [edge.to, layerOf(edge.to) > layerOf(edge.from)]),
    [['src/dashboard/html.ts', true]],
  );
});
