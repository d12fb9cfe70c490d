import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexPack } from '../../../src/core/ingestion/index-pack.js';
import { DEFAULT_INGESTION_POLICY } from '../../../src/core/ingestion/ingestion-policy.js';
import { scanTree } from '../../../src/core/ingestion/policy-scan.js';

const env = { ...process.env, GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
const git = (cwd: string, args: string[], input?: string) => execFileSync('git', args, { cwd, env, input, maxBuffer: 64 * 1024 * 1024 });

async function scan(names: string[]) {
  const repo = mkdtempSync(join(tmpdir(), 'scan-order-'));
  try {
    git(repo, ['init', '-q']);
    for (const name of names) {
      mkdirSync(join(repo, name, '..'), { recursive: true });
      writeFileSync(join(repo, name), `${name}\n`);
    }
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-qm', 'names']);
    const pack = git(repo, ['pack-objects', '--revs', '--stdout'], 'HEAD\n');
    const { catalog } = await indexPack(pack);
    const objects = {
      known: (oid: string) => catalog.get(oid),
      entry: async (oid: string) => catalog.get(oid)!,
      blob: async (oid: string) => catalog.read(oid)!.content,
    };
    const tree = git(repo, ['rev-parse', 'HEAD^{tree}']).toString().trim();
    return await scanTree({ treeOid: tree, policy: DEFAULT_INGESTION_POLICY, objects });
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

describe('scanTree file order', () => {
  it('lists files in path order, directories among files as git stores them', async () => {
    const names = ['ab', 'a/x.txt', 'a-b', 'a.txt', 'a/y/z.txt', 'Z', 'b/a', 'a0'];
    const result = await scan(names);
    expect(result.files.map((f) => f.path)).toEqual([...names].sort());
  });

  it("still sorts by UTF-16 units where that differs from git's byte order (characters beyond U+FFFF)", async () => {
    // U+1F600 is 😀 (F0 9F 98 80 in UTF-8, a surrogate pair D83D DE00); U+FB00 is ﬀ (EF AC 80, one unit FB00).
    const names = ['\u{1F600}.txt', '\uFB00.txt', 'plain.txt'];
    const result = await scan(names);
    expect(result.files.map((f) => f.path)).toEqual([...names].sort());
    expect([...names].sort()).toEqual(['plain.txt', '\u{1F600}.txt', '\uFB00.txt']);
  });
});
