import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { test } from 'node:test';
import { BOOKKEEPING_TABLE } from '../../src/storage/bookkeeping.js';
import { everyQuery } from '../support/every-query.js';

const ROOT = join(import.meta.dirname, '..', '..');
const HEADING = '## What Tidemark does not do';

/** The README's list: each item's bold lead and its text. */
function items(): { lead: string; text: string }[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n${HEADING}\n`);
  assert.ok(start >= 0, `README.md has the section ${HEADING}`);
  const rest = readme.slice(start + HEADING.length + 2);
  const body = rest.slice(0, rest.search(/^## /m));
  return body
    .split(/^- /m)
    .slice(1)
    .map((item) => {
      const lead = /^\*\*(.+?)\*\*/.exec(item)?.[1];
      assert.ok(lead, `each item starts with its lead in bold: ${item.slice(0, 60)}`);
      return { lead, text: item };
    });
}

/** A heading's anchor as GitHub makes it: lowercase, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings (outside code fences). */
function anchors(file: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = /^#{1,6} (.+)$/.exec(line);
    if (!fenced && heading) found.add(slug(heading[1]));
  }
  return found;
}

/** Every link of a Markdown text that is not an address: each file exists and each anchor is a heading of it. */
function brokenLinks(from: string, text: string): string[] {
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, anchor] = target.split('#');
    const file = path === '' ? join(ROOT, from) : normalize(join(ROOT, dirname(from), path));
    if (!existsSync(file)) broken.push(`${target}: no such file`);
    else if (anchor !== undefined && file.endsWith('.md') && !anchors(file).has(anchor))
      broken.push(`${target}: no such heading`);
  }
  return broken;
}

test('each thing Tidemark does not do links to a section that exists', () => {
  const list = items();
  assert.ok(list.length >= 8, `the list has its items (${list.length})`);
  for (const { lead, text } of list) {
    assert.match(text, /\]\([^)]+\)/, `${lead}: links to where the docs say more`);
    assert.deepEqual(brokenLinks('README.md', text), [], lead);
  }
});

test('the links of docs/deployment.md reach files and headings that exist', () => {
  const text = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
  assert.deepEqual(brokenLinks('docs/deployment.md', text), []);
});

/** The list's items the code can hold to their word, by their lead. */
function item(lead: string): string {
  const found = items().find((i) => i.lead.startsWith(lead));
  assert.ok(found, `README.md still says it does not ${lead}`);
  return found.text;
}

test('"Need anything but PostgreSQL": no broker or second store among the dependencies', () => {
  item('Need anything but PostgreSQL');
  const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const names = Object.keys(dependencies);
  assert.ok(names.includes('pg') && names.includes('@electric-sql/pglite'));
  const stores = /redis|bull|amqp|kafka|nats|sqs|mongo|sqlite|mysql|rabbit|zeromq/i;
  assert.deepEqual(
    names.filter((name) => stores.test(name)),
    [],
  );
});

test('"Take over an application\'s tables": Tidemark\'s record of migrations is not called migrations', () => {
  assert.match(item('Take over'), new RegExp(`\`${BOOKKEEPING_TABLE}\``));
  assert.notEqual(BOOKKEEPING_TABLE, 'migrations');
});

test('"Create database roles or grants": no statement the engine runs (but the test kit\'s clock) is DDL or a grant', async () => {
  item('Create database roles or grants');
  const ddl =
    /\b(create|alter|drop)\s+(table|index|schema|function|role|user|sequence|trigger|view|type)\b|\b(truncate|grant|revoke)\b/i;
  const found = (await everyQuery())
    .filter(({ id }) => !id.startsWith('test-kit.ts#'))
    .filter(({ query }) => ddl.test(query.text('tidemark')))
    .map(({ id }) => id);
  assert.deepEqual(found, []);
});
