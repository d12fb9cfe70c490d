import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexPack, PackIndexer, PackIndexError } from '../../../src/core/ingestion/index-pack.js';
import { applyDelta } from '../../../src/core/ingestion/git-delta.js';
import { parseIndex } from '../../../src/core/ingestion/pack-idx.js';
import type { PackCatalog } from '../../../src/core/ingestion/pack-catalog.js';

const git = (cwd: string, args: string[], input?: Buffer) =>
  execFileSync('git', args, {
    cwd,
    input,
    env: { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' },
    maxBuffer: 64 * 1024 * 1024,
  });

describe('indexPack', () => {
  const root = mkdtempSync(join(tmpdir(), 'index-pack-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes the same .idx as `git index-pack`, deltas included', async () => {
    const repo = join(root, 'repo');
    mkdirSync(repo);
    git(repo, ['init', '-q']);
    for (let i = 0; i < 200; i++) {
      mkdirSync(join(repo, `d${i % 9}`), { recursive: true });
      writeFileSync(join(repo, `d${i % 9}`, `f${i}.txt`), Array.from({ length: 40 + i }, (_, n) => `line ${n} of file ${i % 20}`).join('\n'));
    }
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-qm', 'one']);
    for (let i = 0; i < 200; i += 3) writeFileSync(join(repo, `d${i % 9}`, `f${i}.txt`), `changed ${i}\n`, { flag: 'a' });
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-qm', 'two']);
    const pack = git(repo, ['pack-objects', '--revs', '--stdout', '--delta-base-offset'], Buffer.from('HEAD\n'));
    writeFileSync(join(root, 'p.pack'), pack);
    git(root, ['index-pack', '-o', join(root, 'p.idx'), join(root, 'p.pack')]);
    const { idx, objects } = await indexPack(pack);
    const { oids } = parseIndex(idx);
    expect(oids).toHaveLength(objects);
    expect(Buffer.from(idx).equals(readFileSync(join(root, 'p.idx')))).toBe(true);
    expect(oids).toContain(git(repo, ['rev-parse', 'HEAD']).toString().trim());
    const verify = git(root, ['verify-pack', '-v', join(root, 'p.idx')]).toString();
    expect(verify).toMatch(/chain length = 1:/);
  });

  it('hashes a large blob as a stream and still writes the same .idx, or refuses it from its header', async () => {
    const repo = join(root, 'large');
    mkdirSync(repo);
    git(repo, ['init', '-q']);
    writeFileSync(join(repo, 'zeros.bin'), Buffer.alloc(24 * 1024 * 1024));
    writeFileSync(join(repo, 'small.txt'), 'small\n');
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-qm', 'large']);
    const pack = git(repo, ['pack-objects', '--revs', '--stdout', '--delta-base-offset'], Buffer.from('HEAD\n'));
    writeFileSync(join(root, 'large.pack'), pack);
    git(root, ['index-pack', '-o', join(root, 'large.idx'), join(root, 'large.pack')]);
    const { idx } = await indexPack(pack, { maxTotalBytes: 32 * 1024 * 1024 });
    expect(Buffer.from(idx).equals(readFileSync(join(root, 'large.idx')))).toBe(true);
    await expect(indexPack(pack, { maxTotalBytes: 1024 * 1024 })).rejects.toMatchObject({
      reason: 'FILE_TOO_LARGE',
      data: { sizeBytes: 24 * 1024 * 1024, at: expect.stringMatching(/^offset \d+$/) },
    });
    await expect(indexPack(pack, { maxObjectBytes: 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024 })).rejects.toMatchObject({ reason: 'FILE_TOO_LARGE' });
  });

  it('indexes a pack pushed in small pieces, as it downloads, to the same bytes', async () => {
    const pack = readFileSync(join(root, 'p.pack'));
    for (const piece of [7, 1000, 65_536]) {
      const indexer = new PackIndexer();
      for (let at = 0; at < pack.byteLength; at += piece) indexer.push(pack.subarray(at, at + piece));
      const { idx, pack: kept } = await indexer.finish();
      expect(Buffer.from(idx).equals(readFileSync(join(root, 'p.idx')))).toBe(true);
      expect(kept.equals(pack)).toBe(true);
    }
  });

  it('catalogs every object in the same pass: what git cat-file says, deltas resolved', async () => {
    const repo = join(root, 'repo');
    const pack = readFileSync(join(root, 'p.pack'));
    const { catalog, idx } = await indexPack(pack);
    const { oids } = parseIndex(idx);
    const verify = git(root, ['verify-pack', '-v', join(root, 'p.idx')]).toString();
    // Rows of deltified objects name their base: check every one of them, and some others.
    const deltified = verify
      .split('\n')
      .filter((l) => /^[0-9a-f]{40} \w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l))
      .map((l) => l.slice(0, 40));
    expect(deltified.length).toBeGreaterThan(10);
    const checked = [...deltified, ...oids.slice(0, 40)];
    const batch = git(repo, ['cat-file', '--batch'], Buffer.from(`${checked.join('\n')}\n`));
    let at = 0;
    for (const oid of checked) {
      const line = batch.subarray(at, batch.indexOf(10, at)).toString();
      const [, type, size] = line.split(' ');
      at += line.length + 1;
      const content = batch.subarray(at, at + Number(size));
      at += Number(size) + 1;
      const entry = catalog.get(oid)!;
      expect(entry).toMatchObject({ type, size: content.byteLength });
      if (type === 'blob') {
        expect(entry.content).toBeUndefined();
        expect(entry.binary).toBe(false);
      } else expect(Buffer.from(entry.content!).equals(content)).toBe(true);
      expect(Buffer.from(catalog.read(oid)!.content).equals(content)).toBe(true);
    }
  });

  /** Every object of `oids` read through the catalog equals what `git cat-file` gives. */
  function expectCatalogMatchesGit(repo: string, catalog: PackCatalog, oids: string[]): void {
    const batch = git(repo, ['cat-file', '--batch'], Buffer.from(`${oids.join('\n')}\n`));
    let at = 0;
    for (const oid of oids) {
      const line = batch.subarray(at, batch.indexOf(10, at)).toString();
      const size = Number(line.split(' ')[2]);
      at += line.length + 1;
      expect(Buffer.from(catalog.read(oid)!.content).equals(batch.subarray(at, at + size)), oid).toBe(true);
      at += size + 1;
    }
  }

  it('resolves long delta chains, by offset while streaming and by id at the end, to the same .idx and contents', async () => {
    const repo = join(root, 'chains');
    mkdirSync(join(repo, 'src'), { recursive: true });
    git(repo, ['init', '-q']);
    // Thirty versions of the same files (and of their tree): deltas on deltas.
    const lines = Array.from({ length: 300 }, (_, n) => `line ${n}: ${'x'.repeat(n % 50)}`);
    for (let version = 0; version < 30; version++) {
      lines[(version * 37) % lines.length] = `changed in version ${version}`;
      for (let f = 0; f < 4; f++) writeFileSync(join(repo, 'src', `f${f}.txt`), `${f}\n${lines.join('\n')}\n`);
      git(repo, ['add', '-A']);
      git(repo, ['commit', '-qm', `v${version}`]);
    }
    for (const [name, flags] of [
      ['ofs', ['--delta-base-offset']],
      ['ref', []],
    ] as const) {
      const pack = git(repo, ['pack-objects', '--revs', '--stdout', '--depth=50', '--window=50', ...flags], Buffer.from('HEAD\n'));
      writeFileSync(join(root, `${name}.pack`), pack);
      git(root, ['index-pack', '-o', join(root, `${name}.idx`), join(root, `${name}.pack`)]);
      const verify = git(root, ['verify-pack', '-v', join(root, `${name}.idx`)]).toString();
      expect(Math.max(...[...verify.matchAll(/chain length = (\d+):/g)].map((m) => Number(m[1]))), name).toBeGreaterThanOrEqual(10);
      for (const piece of [pack.byteLength, 4096]) {
        const indexer = new PackIndexer();
        for (let at = 0; at < pack.byteLength; at += piece) indexer.push(pack.subarray(at, at + piece));
        const { idx, catalog } = await indexer.finish();
        expect(Buffer.from(idx).equals(readFileSync(join(root, `${name}.idx`))), name).toBe(true);
        expectCatalogMatchesGit(repo, catalog, parseIndex(idx).oids);
      }
    }
  });

  it('keeps commits, trees and tags in memory the catalog owns, not in slices of the shared small-buffer pool', async () => {
    const pack = readFileSync(join(root, 'p.pack'));
    const { catalog, idx } = await indexPack(pack);
    let kept = 0;
    for (const oid of parseIndex(idx).oids) {
      const content = catalog.get(oid)?.content;
      if (!content) continue;
      kept++;
      // A pool slice would keep its whole pool chunk, and whatever else is in it, alive.
      expect(content.buffer.byteLength).not.toBe(Buffer.poolSize);
    }
    expect(kept).toBeGreaterThan(10);
  });

  it('refuses a pack cut short, whether it arrives whole or in pieces', async () => {
    const pack = readFileSync(join(root, 'p.pack'));
    const cut = pack.subarray(0, Math.floor(pack.byteLength / 2));
    await expect(indexPack(cut)).rejects.toThrow(PackIndexError);
    const indexer = new PackIndexer();
    for (let at = 0; at < cut.byteLength; at += 4096) indexer.push(cut.subarray(at, at + 4096));
    await expect(indexer.finish()).rejects.toThrow(PackIndexError);
  });

  it('refuses a delta that copies outside its base instead of leaving bytes unwritten', () => {
    const base = Buffer.from('0123456789');
    // source size 10, target size 8, copy offset 6 size 8 (past the base's end).
    expect(() => applyDelta(base, Buffer.from([10, 8, 0x80 | 0x01 | 0x10, 6, 8]))).toThrow(/outside/);
    expect(applyDelta(base, Buffer.from([10, 4, 0x80 | 0x01 | 0x10, 6, 4])).toString()).toBe('6789');
  });

  it('refuses a corrupted pack', async () => {
    const pack = readFileSync(join(root, 'p.pack'));
    const broken = Buffer.from(pack);
    broken[100] ^= 0xff;
    await expect(indexPack(broken)).rejects.toThrow(PackIndexError);
    await expect(indexPack(Buffer.from('not a pack at all, not a pack at all'))).rejects.toThrow(PackIndexError);
  });
});
