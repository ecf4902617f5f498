import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { create, Header } from 'tar';
import { type ArchiveMember, ArchiveReader, packArchive } from '../../src/storage/driver/seed-archive.js';

const root = mkdtempSync(join(tmpdir(), 'tidemark-archive-test-'));
let scratches = 0;
const scratch = () => {
  const folder = join(root, `s${scratches++}`);
  mkdirSync(folder);
  return folder;
};

/** Read `archive` in chunks of `size` bytes, as the seed's decompression hands it over. */
function readAll(archive: Buffer, size: number): ArchiveMember[] {
  const reader = new ArchiveReader();
  const members: ArchiveMember[] = [];
  for (let at = 0; at < archive.length; at += size)
    members.push(...reader.push(archive.subarray(at, at + size)));
  members.push(...reader.end());
  return members;
}

const MEMBERS: ArchiveMember[] = [
  { name: 'base', kind: 'folder' },
  { name: 'base/1', kind: 'folder' },
  { name: 'base/1/16384', kind: 'file', data: Buffer.alloc(70_000, 7) },
  { name: 'base/1/empty', kind: 'file', data: Buffer.alloc(0) },
  { name: 'PG_VERSION', kind: 'file', data: Buffer.from('17\n') },
];

describe('the seed archive (node-tar)', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  test('what is packed reads back whole, folders before what they hold, whatever the chunk size', () => {
    const archive = packArchive(MEMBERS, scratch());
    for (const size of [1, 511, 4096, archive.length]) {
      const members = readAll(archive, size);
      const byName = new Map(members.map((m) => [m.name, m]));
      assert.deepEqual([...byName.keys()].sort(), MEMBERS.map((m) => m.name).sort(), `chunks of ${size}`);
      for (const member of MEMBERS) {
        const read = byName.get(member.name);
        assert.equal(read?.kind, member.kind, member.name);
        if (member.kind === 'file' && read?.kind === 'file') {
          assert.ok(
            Buffer.from(read.data).equals(Buffer.from(member.data)),
            `${member.name} in chunks of ${size}`,
          );
        }
      }
      const names = members.map((m) => m.name);
      assert.ok(names.indexOf('base/1') < names.indexOf('base/1/16384'));
      assert.ok(names.indexOf('base') < names.indexOf('base/1'));
    }
  });

  test('a damaged header is refused', () => {
    const archive = Buffer.from(packArchive(MEMBERS, scratch()));
    archive[20] ^= 0xff;
    assert.throws(() => readAll(archive, 4096), /checksum/);
  });

  test('a member cut short is refused', () => {
    const archive = packArchive(MEMBERS, scratch());
    // Within the 70,000-byte file, which follows the two folders' headers and its own.
    assert.throws(() => readAll(archive.subarray(0, 3 * 512 + 10_000), 4096), /Truncated input/);
  });

  test('a name that leaves the folder, and a member that is not a folder or a plain file, are refused', () => {
    const header = new Header({ path: '../outside', type: 'File', size: 0, mode: 0o644, mtime: new Date(0) });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    assert.throws(() => readAll(Buffer.concat([block, Buffer.alloc(1024)]), 4096), /refused member name/);

    const folder = scratch();
    writeFileSync(join(folder, 'file'), 'x');
    symlinkSync('file', join(folder, 'link'));
    const file = join(root, 'link.tar');
    create({ sync: true, file, cwd: folder, portable: true }, ['file', 'link']);
    assert.throws(() => readAll(readFileSync(file), 4096), /link is neither a folder nor a plain file/);
  });
});
