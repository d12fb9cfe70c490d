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

  it('writes the same .idx as `git index-pack`, deltas included', () => {
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
    const { idx, oids } = indexPack(pack);
    expect(Buffer.from(idx).equals(readFileSync(join(root, 'p.idx')))).toBe(true);
    expect(oids).toContain(git(repo, ['rev-parse', 'HEAD']).toString().trim());
    const verify = git(root, ['verify-pack', '-v', join(root, 'p.idx')]).toString();
    expect(verify).toMatch(/chain length = 1:/);
  });

  it('refuses a corrupted pack', () => {
    const pack = readFileSync(join(root, 'p.pack'));
    const broken = Buffer.from(pack);
    broken[100] ^= 0xff;
    expect(() => indexPack(broken)).toThrow(PackIndexError);
    expect(() => indexPack(Buffer.from('not a pack at all, not a pack at all'))).toThrow(PackIndexError);
  });
});
