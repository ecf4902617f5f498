import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

/** The project's compiler options (paths map `tidemark` to src/index.ts). */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(resolve('tsconfig.json'), ts.sys.readFile);
  return { ...ts.parseJsonConfigFileContent(config.config, ts.sys, resolve('.')).options, noEmit: true };
}

const OPTIONS = compilerOptions();

/**
 * One host for every program here: each parsed file (the libraries' declarations, src/) is
 * kept and handed to the next program, which then only checks.
 */
const HOST = ((): ts.CompilerHost => {
  const host = ts.createCompilerHost(OPTIONS);
  const parse = host.getSourceFile.bind(host);
  const parsed = new Map<string, ts.SourceFile | undefined>();
  host.getSourceFile = (fileName, languageVersion) => {
    if (!parsed.has(fileName)) parsed.set(fileName, parse(fileName, languageVersion));
    return parsed.get(fileName);
  };
  return host;
})();

/**
 * The type errors of `files` compiled as one program, as `file:line message`: the errors in the
 * type tests' own files, as a user's program sees the package, not the bodies of src/ checked
 * again (`tsc -p .` checks those).
 */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files, OPTIONS, HOST);
  const own = program
    .getSourceFiles()
    .filter((file) => !file.fileName.includes('/node_modules/') && !file.fileName.includes('/src/'));
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
  ];
  return diagnostics.map((d) => {
    const where = d.file
      ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}`
      : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

const FILES = ['test/types/typed-queues.types.ts', 'test/types/registry/registry.types.ts'];

test('the type tests compile, and every line that must not compile does not', (t) => {
  const expectations = FILES.map(
    (file) => (readFileSync(file, 'utf8').match(/@ts-expect-error/g) ?? []).length,
  );
  // Each on its own: the registry, once declared, types every addJob of its program.
  for (const file of FILES) assert.deepEqual(typeErrors([file]), [], file);
  t.diagnostic(
    `${expectations.reduce((a, b) => a + b, 0)} lines that must not compile, in ${FILES.length} files`,
  );
});

test('the check can fail: an expectation that compiles is reported', () => {
  const dir = mkdtempSync(join('test', 'types', 'probe-'));
  try {
    const probe = join(dir, 'probe.types.ts');
    writeFileSync(
      probe,
      "import { z } from 'zod';\nimport type { Tidemark } from '../../../src/index.js';\n" +
        "export async function f(tm: Tidemark) {\n  const q = tm.defineQueue({ name: 'q', input: z.object({ n: z.number() }) });\n" +
        '  // @ts-expect-error\n  await q.add({ n: 1 });\n}\n',
    );
    const errors = typeErrors([probe]);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /Unused '@ts-expect-error' directive/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
