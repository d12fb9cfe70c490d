import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexPack, PackIndexError } from '../../../src/core/ingestion/index-pack.js';

const git = (cwd: string, args: string[], input?: Buffer) =>
  execFileSync('git', args, { cwd, input, env: { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' }, maxBuffer: 64 * 1024 * 1024 });

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
    const { idx, oids } = await indexPack(pack);
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
    await expect(indexPack(pack, { maxTotalBytes: 1024 * 1024 })).rejects.toMatchObject({ reason: 'FILE_TOO_LARGE', data: { sizeBytes: 24 * 1024 * 1024 } });
    await expect(indexPack(pack, { maxObjectBytes: 1024 * 1024, maxTotalBytes: 32 * 1024 * 1024 })).rejects.toMatchObject({ reason: 'FILE_TOO_LARGE' });
  });

  it('refuses a corrupted pack', async () => {
    const pack = readFileSync(join(root, 'p.pack'));
    const broken = Buffer.from(pack);
    broken[100] ^= 0xff;
    await expect(indexPack(broken)).rejects.toThrow(PackIndexError);
    await expect(indexPack(Buffer.from('not a pack at all, not a pack at all'))).rejects.toThrow(PackIndexError);
  });
});
