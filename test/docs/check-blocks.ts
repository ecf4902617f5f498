import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * Type-checks the code blocks of Markdown files under TypeScript `strict`, all in one
 * Program so the library's own types are checked once. The blocks never touch the disk:
 * a compiler host serves each one as a virtual module beside this file, so `node_modules`
 * and the package's `"type": "module"` apply to them as they would to a user's file.
 *
 * Fences and what happens to them:
 * - ```ts, ```typescript, ```mts: checked as TypeScript modules.
 * - ```js, ```javascript, ```mjs: checked as JavaScript modules (`checkJs`), so a JavaScript
 *   example is held to what its types say without TypeScript syntax being required.
 * - anything else (```sh, ```text, ```promql, a bare fence): not code to compile.
 *
 * Names a block uses without defining (the user's own functions, `tm`) come from
 * DOC_GLOBALS; anything particular to one block comes from an HTML comment right above
 * its fence, which Markdown does not render:
 *
 *   <!-- ts-preamble: declare const ctx: JobContext; -->
 *
 * The preamble is prepended to the block, so it may import (`import type { JobContext }
 * from 'tidemark';`). Error positions are mapped back to the Markdown line.
 */

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BLOCK_DIR = join(REPO, 'test', 'docs');
const GLOBALS_FILE = join(BLOCK_DIR, '__doc_globals__.d.ts');

const TS_LANGS = new Set(['ts', 'typescript', 'mts']);
const JS_LANGS = new Set(['js', 'javascript', 'mjs']);

export interface CodeBlock {
  /** The Markdown file, relative to the repository. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: 'ts' | 'js';
  code: string;
  preamble: string;
}

export interface BlockError {
  block: CodeBlock;
  /** 1-based Markdown line, or null when the error is in the block's preamble. */
  line: number | null;
  code: number;
  message: string;
}

/** Every ts/js block of one Markdown text, with its preamble. */
export function extractBlocks(file: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const closing = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !closing.test(lines[end])) end++;
    const lang = info.toLowerCase();
    const kind = TS_LANGS.has(lang) ? 'ts' : JS_LANGS.has(lang) ? 'js' : null;
    if (kind) {
      // A block inside a list item is indented as a whole; its code starts at the fence's column.
      const body = lines.slice(i + 1, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l));
      blocks.push({
        file,
        line: i + 1,
        lang: kind,
        code: body.join('\n'),
        preamble: preambleAbove(lines, i),
      });
    }
    i = end;
  }
  return blocks;
}

/** The `<!-- ts-preamble: … -->` comment directly above line `fence` (blank lines allowed between). */
function preambleAbove(lines: string[], fence: number): string {
  let last = fence - 1;
  while (last >= 0 && lines[last].trim() === '') last--;
  if (last < 0 || !lines[last].trimEnd().endsWith('-->')) return '';
  let first = last;
  while (first >= 0 && !lines[first].includes('<!--')) first--;
  if (first < 0) return '';
  const comment = lines
    .slice(first, last + 1)
    .join('\n')
    .trim();
  const match = /^<!--\s*ts-preamble:([\s\S]*?)-->$/.exec(comment);
  return match ? match[1].trim() : '';
}

/** Type-check the blocks in one Program; returns every error, mapped to Markdown lines. */
export function checkBlocks(blocks: CodeBlock[], globals: string): BlockError[] {
  const sources = new Map<string, { text: string; block: CodeBlock | null; preambleLines: number }>();
  sources.set(GLOBALS_FILE, { text: globals, block: null, preambleLines: 0 });
  for (const block of blocks) {
    const name = `__doc_${block.file.replace(/[^A-Za-z0-9]+/g, '_')}_L${block.line}__.${block.lang === 'ts' ? 'ts' : 'js'}`;
    const preamble = block.preamble === '' ? '' : `${block.preamble}\n`;
    sources.set(join(BLOCK_DIR, name), {
      text: preamble + block.code + '\n',
      block,
      preambleLines: preamble === '' ? 0 : preamble.split('\n').length - 1,
    });
  }

  const options: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    // Every block is a module of its own, even one without import or export.
    moduleDetection: ts.ModuleDetectionKind.Force,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    allowJs: true,
    checkJs: true,
    esModuleInterop: true,
    skipLibCheck: true,
    noEmit: true,
    // `tidemark` is this package's source, so the docs are checked against the code as it is.
    paths: {
      tidemark: [join(REPO, 'src', 'index.ts')],
      'tidemark/dashboard': [join(REPO, 'src', 'dashboard', 'index.ts')],
      'tidemark/http-api': [join(REPO, 'src', 'http-api', 'index.ts')],
      ...Object.fromEntries(
        ['kysely', 'drizzle', 'prisma', 'postgres-js', 'knex'].map((name) => [
          `tidemark/${name}`,
          [join(REPO, 'src', 'storage', 'adapters', `${name}.ts`)],
        ]),
      ),
    },
  };
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const virtual = sources.get(fileName);
    if (virtual) return ts.createSourceFile(fileName, virtual.text, languageVersion, true);
    return getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  host.fileExists = (fileName) => sources.has(fileName) || fileExists(fileName);
  host.readFile = (fileName) => sources.get(fileName)?.text ?? readFile(fileName);

  const program = ts.createProgram({ rootNames: [...sources.keys()], options, host });
  const errors: BlockError[] = [];
  const fromGlobals: string[] = [];
  for (const diagnostic of program.getGlobalDiagnostics()) {
    fromGlobals.push(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  }
  for (const [fileName, source] of sources) {
    const sourceFile = program.getSourceFile(fileName);
    if (!sourceFile) throw new Error(`the program lost ${fileName}`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(sourceFile),
      ...program.getSemanticDiagnostics(sourceFile),
    ];
    for (const diagnostic of diagnostics) {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      const at =
        diagnostic.start === undefined ? 0 : sourceFile.getLineAndCharacterOfPosition(diagnostic.start).line;
      if (!source.block) {
        fromGlobals.push(`line ${at + 1}: TS${diagnostic.code} ${message}`);
        continue;
      }
      errors.push({
        block: source.block,
        line: at < source.preambleLines ? null : source.block.line + 1 + at - source.preambleLines,
        code: diagnostic.code,
        message,
      });
    }
  }
  if (fromGlobals.length > 0)
    throw new Error(`the shared doc declarations do not compile:\n${fromGlobals.join('\n')}`);
  return errors;
}

export function formatError(error: BlockError): string {
  const where =
    error.line === null
      ? `${error.block.file}:${error.block.line} (the ts-preamble of the block at line ${error.block.line})`
      : `${error.block.file}:${error.line} (block at line ${error.block.line})`;
  return `${where}: TS${error.code}: ${error.message}`;
}

/** README.md and docs/*.md, as paths relative to the repository. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(REPO, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

export function readDoc(file: string): string {
  return readFileSync(join(REPO, file), 'utf8');
}
