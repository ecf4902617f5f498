import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const ROOT = resolve('.');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The first ```ts block under the README's "## Quick start" heading. */
function quickStart(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(match, 'README.md has a ts block under "## Quick start"');
  return match[1];
}

/** Modification times (ms) of the files under `path`, or of `path` itself. */
function mtimes(path: string): number[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isDirectory()) return [stat.mtimeMs];
  return readdirSync(path).flatMap((entry) => mtimes(join(path, entry)));
}

/**
 * dist/ as the build leaves it, newer than every file the build reads. `npm ci` builds it
 * (prepare), so in CI and after a build it is; a rebuild then only repeats the same output.
 */
function distIsFresh(): boolean {
  const built = mtimes(join(ROOT, 'dist'));
  const sources = [
    ...mtimes(join(ROOT, 'src')),
    ...mtimes(join(ROOT, 'tsconfig.json')),
    ...mtimes(join(ROOT, 'tsconfig.build.json')),
  ];
  return built.length > 0 && Math.min(...built) >= Math.max(...sources);
}

// Packs the project as `npm publish` would (the prepare script builds dist/: it runs here only
// when dist/ is older than a source, since `npm ci` and `npm run build` leave it fresh),
// installs the tarball into a new app beside nothing else, and uses it there as a user would.
describe('the packed package, installed into a fresh app', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidemark-pack-'));
  const app = join(dir, 'app');
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('npm pack builds dist/ through prepare; the tarball installs, runs a job and type-checks the quick start and the dashboard entry', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    assert.equal(scripts.prepare, 'npm run build', 'npm pack and npm publish build dist/ first');
    const pack = ['pack', '--json', '--pack-destination', dir];
    if (distIsFresh()) pack.push('--ignore-scripts');
    const packed = JSON.parse(execFileSync('npm', pack, { cwd: ROOT, encoding: 'utf8' })) as {
      filename: string;
      files: { path: string }[];
    }[];
    const files = packed[0].files.map((f) => f.path);
    for (const needed of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/require.cjs',
      'dist/cli/bin.js',
      'dist/dashboard/index.js',
      'dist/dashboard/index.d.ts',
      // The live-refresh script the dashboard serves is a module, so it ships with dist/.
      'dist/dashboard/refresh-script.js',
      // The data folder new embedded folders start from, made by the build.
      'dist/pglite-seed/data.tar.br',
      'dist/pglite-seed/manifest.json',
    ]) {
      assert.ok(files.includes(needed), `${needed} is in the tarball`);
    }
    assert.ok(
      !files.some((f) => f.startsWith('src/') || f.startsWith('test/')),
      'no sources or tests shipped',
    );

    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    execFileSync(
      'npm',
      [
        'install',
        join(dir, packed[0].filename),
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
      ],
      { cwd: app, encoding: 'utf8' },
    );
    const installed = join(app, 'node_modules', 'tidemark');

    // Stack traces can show the TypeScript that is not shipped: the maps carry it.
    const map = JSON.parse(readFileSync(join(installed, 'dist', 'tidemark.js.map'), 'utf8')) as {
      sourcesContent?: string[];
    };
    assert.match(map.sourcesContent?.[0] ?? '', /export class Tidemark/);

    // A job on memory://, through the package's own entry point; on the same engine, the
    // dashboard's entry (`tidemark/dashboard`) and the HTTP API's (`tidemark/http-api`), which
    // serves and answers from the tarball. One open: each costs a PostgreSQL start.
    writeFileSync(
      join(app, 'run.mjs'),
      `import { Tidemark, silentLogger } from 'tidemark';
import { createDashboardHandler } from 'tidemark/dashboard';
import { serveApi } from 'tidemark/http-api';
const tm = await Tidemark.open({ database: 'memory://', logger: silentLogger });
tm.createQueue({ name: 'hello', handler: (job) => 'hi ' + job.data.name });
const worker = tm.worker({ pollIntervalSeconds: 0.05 });
await worker.start();
const { id } = await tm.addJob({ queue: 'hello', data: { name: 'packed' } });
console.log(await tm.result(id, { timeoutSeconds: 30 }));
console.log(typeof createDashboardHandler(tm, { basePath: '/jobs' }));
const api = await serveApi(tm, { port: 0, tokens: { ci: { secret: 'ci-secret-0123456789', scopes: ['read'] } } });
const doc = await (await fetch(api.url + 'api/v1/openapi.json')).json();
console.log(doc.openapi);
await api.close();
await tm.close();
`,
    );
    assert.equal(
      execFileSync(process.execPath, ['run.mjs'], { cwd: app, encoding: 'utf8' }),
      'hi packed\nfunction\n3.1.0\n',
    );

    // A new folder starts from the packaged seed: its migrations were applied before this open.
    writeFileSync(
      join(app, 'folder.mjs'),
      `import { PGlite } from '@electric-sql/pglite';
import { Tidemark, silentLogger } from 'tidemark';
const opening = new Date();
await (await Tidemark.open({ database: './db', logger: silentLogger })).close();
const db = await PGlite.create('./db');
const { rows } = await db.query('select max(applied_at) as at from tidemark.tidemark_migrations');
await db.close();
console.log(rows[0].at < opening ? 'from the seed' : 'created afresh');
`,
    );
    assert.equal(
      execFileSync(process.execPath, ['folder.mjs'], { cwd: app, encoding: 'utf8' }),
      'from the seed\n',
    );

    // The ORM adapters' entries load in an app that installed none of the libraries.
    writeFileSync(
      join(app, 'adapters.mjs'),
      `const names = { kysely: 'fromKysely', drizzle: 'fromDrizzle', prisma: 'fromPrisma', 'postgres-js': 'fromPostgresJs', knex: 'fromKnex' };
for (const [entry, name] of Object.entries(names)) console.log(entry, typeof (await import('tidemark/' + entry))[name]);
`,
    );
    assert.equal(
      execFileSync(process.execPath, ['adapters.mjs'], { cwd: app, encoding: 'utf8' }),
      'kysely function\ndrizzle function\nprisma function\npostgres-js function\nknex function\n',
    );

    // CommonJS: require() works where Node can load ES modules that way; elsewhere it says why.
    writeFileSync(join(app, 'use.cjs'), "console.log(typeof require('tidemark').Tidemark);\n");
    assert.equal(execFileSync(process.execPath, ['use.cjs'], { cwd: app, encoding: 'utf8' }), 'function\n');
    const old = spawnSync(process.execPath, ['--no-experimental-require-module', 'use.cjs'], {
      cwd: app,
      encoding: 'utf8',
    });
    assert.notEqual(old.status, 0);
    assert.match(old.stderr, /tidemark is an ES module \(ESM-only\).*import\('tidemark'\)/);

    // The README's quick start, strict, with the package's declarations checked too.
    writeFileSync(
      join(app, 'quick-start.ts'),
      `declare function sendEmail(to: string, options: { signal: AbortSignal }): Promise<void>;\n${quickStart()}`,
    );
    writeFileSync(
      join(app, 'mount.ts'),
      `import type { Server } from 'node:http';
import type { Tidemark } from 'tidemark';
import { createDashboardHandler, type DashboardHandler, type DashboardHandlerOptions } from 'tidemark/dashboard';
declare const tm: Tidemark;
const options: DashboardHandlerOptions = { basePath: '/jobs', readOnly: true };
const handler: DashboardHandler = createDashboardHandler(tm, options);
export const mount = (server: Server): Server => server.on('request', (req, res) => void handler(req, res));
`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
        },
        files: ['quick-start.ts', 'mount.ts'],
      }),
    );
    const check = spawnSync(process.execPath, [TSC, '-p', app], { encoding: 'utf8' });
    assert.equal(check.status, 0, `tsc in the fresh app:\n${check.stdout}${check.stderr}`);
    assert.ok(
      readdirSync(join(app, 'node_modules', '@types')).includes('pg'),
      'pg types come with the package',
    );
  });
});
