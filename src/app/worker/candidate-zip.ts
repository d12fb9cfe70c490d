import { crc32, deflateRawSync } from 'node:zlib';
import type { CheckoutFile } from '../../core/verify/verifier.js';

/** Entries a zip without zip64 can hold. */
const MAX_ENTRIES = 0xffff;
/** 1980-01-01 00:00 in DOS date format: every entry has it, so equal trees give equal archives. */
const DOS_DATE = 0x21;

const MODES: Record<string, number> = { '100644': 0o100644, '100755': 0o100755, '120000': 0o120777 };

/**
 * The candidate tree as a deterministic zip (what a verification build unpacks with `unzip`):
 * entries in the order given, fixed dates, UTF-8 names, unix modes in the external attributes
 * (so a symlink stays a symlink), deflated at a fixed level. Refuses more than `maxBytes` of
 * archive or more entries than a zip without zip64 holds, before writing anything.
 */
export async function zipCandidate(files: AsyncIterable<CheckoutFile>, maxBytes: number): Promise<Uint8Array> {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  let entries = 0;
  for await (const file of files) {
    if (++entries > MAX_ENTRIES) throw new Error(`the candidate has more than ${MAX_ENTRIES} files, more than a verification archive holds`);
    const mode = MODES[file.mode];
    if (mode === undefined) continue;
    const name = Buffer.from(file.path, 'utf8');
    const data = Buffer.from(file.content);
    const deflated = deflateRawSync(data, { level: 6 });
    const stored = deflated.length >= data.length;
    const body = stored ? data : deflated;
    const crc = crc32(data);
    // The fields the local header and the central directory entry share, at their offsets in each.
    const shared = (buffer: Buffer, at: number): void => {
      buffer.writeUInt16LE(20, at);
      buffer.writeUInt16LE(0x0800, at + 2);
      buffer.writeUInt16LE(stored ? 0 : 8, at + 4);
      buffer.writeUInt16LE(0, at + 6);
      buffer.writeUInt16LE(DOS_DATE, at + 8);
      buffer.writeUInt32LE(crc, at + 10);
      buffer.writeUInt32LE(body.length, at + 14);
      buffer.writeUInt32LE(data.length, at + 18);
      buffer.writeUInt16LE(name.length, at + 22);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    shared(local, 4);
    local.writeUInt16LE(0, 28);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE((3 << 8) | 20, 4);
    shared(header, 6);
    header.writeUInt32LE((mode << 16) >>> 0, 38);
    header.writeUInt32LE(offset, 42);
    parts.push(local, name, body);
    central.push(header, name);
    offset += local.length + name.length + body.length;
    if (offset > maxBytes) throw new Error(`the candidate archive is larger than ${maxBytes} bytes`);
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(central.length / 2, 8);
  end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}
