import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, describe, test } from 'node:test';

const BIOME = resolve('node_modules', '@biomejs', 'biome', 'bin', 'biome');

/** A wrong import per layering rule, and one allowed import, in the folder each rule guards. */
const PROBES: { path: string; code: string; refusedWith: RegExp | null }[] = [
  {
    path: 'src/model/probe.ts',
    code: "import type { Storage } from '../storage/storage.js';\nexport type X = Storage;\n",
    refusedWith: /model\/ is the leaf/,
  },
  {
    path: 'src/storage/probe.ts',
    code: "import type { Worker } from '../worker/worker.js';\nexport type X = Worker;\n",
    refusedWith: /storage\/ imports only model\//,
  },
  {
    path: 'src/storage/sql/probe.ts',
    code: "import { Tidemark } from '../../index.js';\nexport const x = Tidemark;\n",
    refusedWith: /storage\/ imports only model\//,
  },
  {
    path: 'src/jobs/probe.ts',
    code: "import { main } from '../cli/main.js';\nexport const x = main;\n",
    refusedWith: /Only the CLI imports the CLI/,
  },
  {
    path: 'src/dashboard/probe.ts',
    code: "import { main } from '../cli/main.js';\nexport const x = main;\n",
    refusedWith: /Only the CLI imports the CLI/,
  },
  {
    path: 'src/worker/probe.ts',
    code: "import { createDashboardHandler } from '../dashboard/index.js';\nexport const x = createDashboardHandler;\n",
    refusedWith: /The dashboard is its own entry/,
  },
  {
    path: 'src/dashboard/pages/probe.ts',
    code: "import type { Tidemark } from '../../tidemark.js';\nexport type X = Tidemark;\n",
    refusedWith: /names the engine by its port/,
  },
  {
    path: 'src/admin/probe.ts',
    code: "import type { Tidemark } from '../tidemark.js';\nexport type X = Tidemark;\n",
    refusedWith: /admin\/ read models sit below the facade/,
  },
  {
    path: 'src/admin/probe-dashboard.ts',
    code: "import { html } from '../dashboard/html.js';\nexport const x = html;\n",
    refusedWith: /The dashboard is its own entry/,
  },
  {
    path: 'src/jobs/probe-sql.ts',
    code: "import { getJob } from '../storage/sql/jobs.js';\nexport const x = getJob;\n",
    refusedWith: /reached through its door only/,
  },
  {
    path: 'src/admin/probe-runner.ts',
    code: "import { runnerOf } from '../storage/storage-internals.js';\nexport const x = runnerOf;\n",
    refusedWith: /reached through its door only/,
  },
  {
    path: 'src/dashboard/probe-driver.ts',
    code: "import { createDriver } from '../storage/driver/create-driver.js';\nexport const x = createDriver;\n",
    refusedWith: /reached through its door only/,
  },
  {
    path: 'src/cli/probe-migrate.ts',
    code: "import { migrate } from '../storage/migrate.js';\nexport const x = migrate;\n",
    refusedWith: /reached through its door only/,
  },
  {
    path: 'src/worker/allowed-door.ts',
    code: "import type { Storage } from '../storage/storage.js';\n\nexport type X = Storage;\n",
    refusedWith: null,
  },
  {
    path: 'src/http/probe.ts',
    code: "import { html } from '../dashboard/html.js';\nexport const x = html;\n",
    refusedWith: /src\/http\/ sits below the dashboard/,
  },
  {
    path: 'src/http/probe-cli.ts',
    code: "import { main } from '../cli/main.js';\nexport const x = main;\n",
    refusedWith: /Only the CLI imports the CLI/,
  },
  {
    path: 'src/http/probe-facade.ts',
    code: "import type { Tidemark } from '../tidemark.js';\nexport type X = Tidemark;\n",
    refusedWith: /src\/http\/ sits below the facade/,
  },
  {
    path: 'src/http/allowed.ts',
    code: "import { TidemarkError } from '../errors.js';\n\nexport const x = TidemarkError;\n",
    refusedWith: null,
  },
  {
    path: 'src/worker/probe-api.ts',
    code: "import { createApiHandler } from '../http-api/index.js';\nexport const x = createApiHandler;\n",
    refusedWith: /The HTTP API is its own entry/,
  },
  {
    path: 'src/http-api/probe.ts',
    code: "import { html } from '../dashboard/html.js';\nexport const x = html;\n",
    refusedWith: /The HTTP API sits below the dashboard/,
  },
  {
    path: 'src/http-api/probe-facade.ts',
    code: "import type { Tidemark } from '../tidemark.js';\nexport type X = Tidemark;\n",
    refusedWith: /names the engine by its port/,
  },
  {
    path: 'src/http-api/probe-sql.ts',
    code: "import { getJob } from '../storage/sql/jobs.js';\nexport const x = getJob;\n",
    refusedWith: /reached through its door only/,
  },
  {
    path: 'src/http/probe-api.ts',
    code: "import { API_PREFIX } from '../http-api/handler.js';\nexport const x = API_PREFIX;\n",
    refusedWith: /src\/http\/ sits below the HTTP API/,
  },
  {
    path: 'src/dashboard/allowed-api.ts',
    code: "import { API_PREFIX } from '../http-api/handler.js';\n\nexport const x = API_PREFIX;\n",
    refusedWith: null,
  },
  {
    path: 'src/storage/allowed.ts',
    code: "import type { Job } from '../model/job.js';\n\nexport type X = Job;\n",
    refusedWith: null,
  },
];

interface Diagnostic {
  severity: string;
  message: string;
  category?: string;
  location?: { path?: string };
}

// The layering rules live in biome.json (overrides with noRestrictedImports) and `npm run lint`
// enforces them; the probes are linted with the project's own configuration in a scratch copy,
// all in one run of biome (a process each cost about 0.2 s of CPU), and each test reads the
// diagnostics of its own probe's file.
describe('layering rules in biome.json', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidemark-layering-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const config = JSON.parse(readFileSync('biome.json', 'utf8')) as Record<string, unknown>;
  // The scratch folder is not a git checkout.
  writeFileSync(join(dir, 'biome.json'), JSON.stringify({ ...config, vcs: { enabled: false } }));
  for (const probe of PROBES) {
    const file = join(dir, probe.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, probe.code);
  }
  let diagnostics: Diagnostic[] | null = null;
  /** Every diagnostic of the one lint of all the probes, by biome's JSON reporter. */
  const lint = (): Diagnostic[] => {
    if (diagnostics) return diagnostics;
    const run = spawnSync(
      process.execPath,
      [
        BIOME,
        'lint',
        '--reporter=json',
        '--max-diagnostics=none',
        '--config-path',
        dir,
        ...PROBES.map((p) => p.path),
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    let report: { summary: { diagnosticsNotPrinted: number }; diagnostics: Diagnostic[] };
    try {
      report = JSON.parse(run.stdout);
    } catch {
      throw new Error(`biome gave no JSON report (status ${run.status}):\n${run.stdout}${run.stderr}`);
    }
    assert.equal(report.summary.diagnosticsNotPrinted, 0, 'every diagnostic is in the report');
    diagnostics = report.diagnostics;
    return diagnostics;
  };

  for (const probe of PROBES) {
    test(`${probe.path}: ${probe.refusedWith ? 'refused' : 'allowed'}`, () => {
      const own = lint().filter((d) => d.location?.path === probe.path);
      const errors = own.filter((d) => d.severity === 'error' || d.severity === 'fatal');
      const output = JSON.stringify(own, null, 2);
      if (probe.refusedWith) {
        assert.notEqual(errors.length, 0, output);
        const refusals = errors.filter((d) => d.category === 'lint/style/noRestrictedImports');
        assert.notEqual(refusals.length, 0, output);
        assert.ok(
          refusals.some((d) => (probe.refusedWith as RegExp).test(d.message)),
          output,
        );
      } else {
        assert.deepEqual(errors, [], output);
      }
    });
  }
});
