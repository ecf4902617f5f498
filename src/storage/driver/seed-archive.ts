import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { create, Header, Parser, type ReadEntry } from 'tar';

/** One member of the seed's archive: a folder, or a file with its bytes. */
export type ArchiveMember =
  | { name: string; kind: 'folder' }
  | { name: string; kind: 'file'; data: Uint8Array };

/**
 * A tar archive of `members` (names relative and `/`-separated, each folder before what it
 * holds), written by node-tar from a copy laid out in `scratch`, an empty folder: what a
 * database folder holds, folders and plain files, with portable headers (no owner, no device).
 */
export function packArchive(members: readonly ArchiveMember[], scratch: string): Buffer {
  for (const member of members) {
    const path = join(scratch, ...memberName(member.name).split('/'));
    if (member.kind === 'folder') mkdirSync(path);
    else writeFileSync(path, member.data);
  }
  const file = `${scratch}.tar`;
  create({ sync: true, file, cwd: scratch, portable: true }, readdirSync(scratch).sort());
  return readFileSync(file);
}

/** A tar block: headers, and each member's data padded to whole blocks. */
const BLOCK = 512;

/**
 * A tar archive of `members` in memory, each file written out to `sizeOf(member)` bytes, zeros
 * after its data, with node-tar's headers: what PGlite's `loadDataDir` reads. Null when a name
 * would need an extended header (a data folder holds none).
 */
export function archiveInMemory(
  members: readonly ArchiveMember[],
  sizeOf: (member: ArchiveMember & { kind: 'file' }) => number,
): Blob | null {
  const parts: Uint8Array[] = [];
  for (const member of members) {
    const folder = member.kind === 'folder';
    const size = folder ? 0 : sizeOf(member);
    const header = Buffer.alloc(BLOCK);
    const needsPax = new Header({
      path: folder ? `${member.name}/` : member.name,
      type: folder ? 'Directory' : 'File',
      mode: folder ? 0o700 : 0o600,
      size,
      mtime: new Date(0),
    }).encode(header, 0);
    if (needsPax) return null;
    parts.push(header);
    if (folder) continue;
    parts.push(member.data, new Uint8Array(Math.ceil(size / BLOCK) * BLOCK - member.data.length));
  }
  parts.push(new Uint8Array(2 * BLOCK));
  return new Blob(parts);
}

/**
 * Reads a tar archive as it arrives, chunk by chunk, with node-tar's parser, so that its
 * members can be written while the rest is still being decompressed. Throws on a damaged
 * header, a member cut short (both found by the parser), a member that is neither a folder nor
 * a plain file, and a name that would leave the folder it is unpacked into.
 */
export class ArchiveReader {
  private readonly parser: Parser;
  private members: ArchiveMember[] = [];
  private failure: unknown = null;

  constructor() {
    this.parser = new Parser({ strict: true, onReadEntry: (entry) => this.read(entry) });
    this.parser.on('error', (error: unknown) => {
      this.failure ??= error;
    });
  }

  /** The members completed by `chunk`; the parser delivers them as it is written to. */
  push(chunk: Buffer): ArchiveMember[] {
    this.parser.write(chunk);
    return this.completed();
  }

  /** Called once the archive has all arrived: the last members. */
  end(): ArchiveMember[] {
    this.parser.end();
    return this.completed();
  }

  private completed(): ArchiveMember[] {
    if (this.failure !== null) throw this.failure;
    const members = this.members;
    this.members = [];
    return members;
  }

  private read(entry: ReadEntry): void {
    let name: string;
    try {
      name = memberName(entry.path);
    } catch (error) {
      this.failure ??= error;
      entry.resume();
      return;
    }
    if (entry.type === 'Directory') {
      // Read to its end, or the parser waits on it and delivers nothing more.
      entry.resume();
      this.members.push({ name, kind: 'folder' });
    } else if (entry.type === 'File' || entry.type === 'OldFile') {
      const chunks: Buffer[] = [];
      entry.on('data', (chunk: Buffer) => chunks.push(chunk));
      entry.on('end', () => {
        this.members.push({
          name,
          kind: 'file',
          data: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
        });
      });
    } else {
      entry.resume();
      this.failure ??= new Error(`tar: ${name} is neither a folder nor a plain file`);
    }
  }
}

/** Relative, `/`-separated, without `.` or `..` segments: a name that stays inside its folder. */
function memberName(name: string): string {
  const trimmed = name.replace(/\/+$/, '');
  const segments = trimmed.split('/');
  if (trimmed === '' || segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) {
    throw new Error(`tar: refused member name ${JSON.stringify(name)}`);
  }
  return trimmed;
}
