/** One member of a tar archive: a folder, or a file with its bytes. */
export type TarEntry = { name: string; kind: 'folder' } | { name: string; kind: 'file'; data: Uint8Array };

const BLOCK = 512;

/**
 * A ustar archive of `entries`, names relative and `/`-separated. Only what a database folder
 * holds: folders and plain files, names of at most 100 bytes, no links.
 */
export function packTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const size = entry.kind === 'file' ? entry.data.length : 0;
    parts.push(header(entry.name, entry.kind, size));
    if (entry.kind === 'file') {
      parts.push(Buffer.from(entry.data.buffer, entry.data.byteOffset, size));
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/**
 * The entries of a ustar archive, in order; file data are views into `archive`. Throws as
 * `TarReader` does.
 */
export function unpackTar(archive: Buffer): TarEntry[] {
  const reader = new TarReader();
  const entries = reader.push(archive);
  reader.end();
  return entries;
}

/**
 * Reads a ustar archive as it arrives, chunk by chunk, so that its members can be written while
 * the rest is still being decompressed. Throws on a damaged header (its checksum), a member that
 * is neither a folder nor a plain file, a name that would leave the folder it is unpacked into,
 * and an archive without its end-of-archive marker.
 */
export class TarReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private offset = 0;
  private file: { name: string; size: number } | null = null;
  private ended = false;

  /** The members completed by `chunk`; file data are views into the chunks. */
  push(chunk: Buffer): TarEntry[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const entries: TarEntry[] = [];
    while (!this.ended) {
      if (this.file) {
        const { name, size } = this.file;
        const padded = Math.ceil(size / BLOCK) * BLOCK;
        if (this.buffered < padded) break;
        entries.push({ name, kind: 'file', data: this.take(padded).subarray(0, size) });
        this.file = null;
        continue;
      }
      if (this.buffered < BLOCK) break;
      const at = this.offset;
      const block = this.take(BLOCK);
      if (block.every((byte) => byte === 0)) {
        this.ended = true;
        break;
      }
      if (octal(block, 148, 8) !== checksum(block)) throw new Error(`tar: damaged header at ${at}`);
      const prefix = text(block, 345, 155);
      const name = checkName(prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
      const type = block[156];
      if (type === 0x35) entries.push({ name, kind: 'folder' });
      else if (type === 0x30 || type === 0) this.file = { name, size: octal(block, 124, 12) };
      else throw new Error(`tar: ${name} is neither a folder nor a plain file`);
    }
    return entries;
  }

  /** Called once the archive has all arrived. */
  end(): void {
    if (this.file) throw new Error(`tar: ${this.file.name} is cut short`);
    if (!this.ended) throw new Error('tar: no end-of-archive marker');
  }

  /** The next `length` bytes, joined only when they span chunks. */
  private take(length: number): Buffer {
    let first = this.chunks[0];
    if (first.length < length) {
      first = Buffer.concat(this.chunks, this.buffered);
      this.chunks = [first];
    }
    if (first.length === length) this.chunks.shift();
    else this.chunks[0] = first.subarray(length);
    this.buffered -= length;
    this.offset += length;
    return first.subarray(0, length);
  }
}

function header(name: string, kind: TarEntry['kind'], size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const bytes = Buffer.from(checkName(name));
  if (bytes.length > 100) throw new Error(`tar: name longer than 100 bytes: ${name}`);
  bytes.copy(block, 0);
  block.write(kind === 'folder' ? '0000755\0' : '0000644\0', 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'ascii');
  block.write('00000000000\0', 136, 'ascii');
  block[156] = kind === 'folder' ? 0x35 : 0x30;
  block.write('ustar\0' + '00', 257, 'ascii');
  block.write(`${checksum(block).toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** The header's checksum: the sum of its bytes, its own field counted as spaces. */
function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
  return sum;
}

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

function octal(block: Buffer, start: number, length: number): number {
  const digits = text(block, start, length).trim();
  return digits === '' ? 0 : Number.parseInt(digits, 8);
}

/** Relative, `/`-separated, without `.` or `..` segments. */
function checkName(name: string): string {
  const trimmed = name.replace(/\/+$/, '');
  const segments = trimmed.split('/');
  if (trimmed === '' || segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'))) {
    throw new Error(`tar: refused member name ${JSON.stringify(name)}`);
  }
  return trimmed;
}
