import { describe, expect, it } from 'vitest';
import { diffWorkspaceToBase } from '../../../src/core/git/git-diff.js';
import { quoteGitPath, unquoteGitPath } from '../../../src/core/text/quote-path.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} ${i}\n`).join('');

describe('diff summary and limits', () => {
  it('counts insertions and deletions, keeps binary and generated files out of the model view, and says so', async () => {
    const repo = await createMemoryRepo({ 'src/a.ts': lines(10, 'a'), 'pom.xml': '<project/>\n', 'dist/out.js': 'x\n', 'img.png': new Uint8Array([0, 1]) });
    const ws = repo.workspace;
    await ws.write('src/a.ts', lines(10, 'a').replace('a 2\n', 'a two\nextra\n'));
    await ws.write('pom.xml', '<project><v>2</v></project>\n');
    await ws.write('dist/out.js', 'y\n');
    await ws.write('img.png', new Uint8Array([0, 2]));
    const result = await diffWorkspaceToBase(ws, { rules: defaultPathRules() });
    expect(result.summary).toMatchObject({ baseCommitSha: repo.commitSha, filesChanged: 4, insertions: 4, deletions: 3 });
    expect(result.summary.files.map((f) => [f.path, f.kind, f.insertions, f.deletions, f.risk, f.generated, f.binary])).toEqual([
      ['dist/out.js', 'MODIFIED', 1, 1, 'LOW', true, false],
      ['img.png', 'MODIFIED', 0, 0, 'LOW', false, true],
      ['pom.xml', 'MODIFIED', 1, 1, 'MEDIUM', false, false],
      ['src/a.ts', 'MODIFIED', 2, 1, 'LOW', false, false],
    ]);
    expect(result.numstat).toBe('1\t1\tdist/out.js\n-\t-\timg.png\n1\t1\tpom.xml\n2\t1\tsrc/a.ts\n');
    expect(result.modelPatch).toContain('diff --git a/src/a.ts b/src/a.ts');
    expect(result.modelPatch).not.toContain('diff --git a/dist/out.js');
    expect(result.modelPatch).not.toContain('diff --git a/img.png');
    expect(result.modelPatch).toContain('this patch is incomplete; 2 file(s) not shown: dist/out.js, img.png');
    expect(new TextDecoder().decode(result.patch)).toContain('Binary files a/img.png and b/img.png differ');
    expect(result.summary.warnings).toContain('Diff omitted for generated file dist/out.js');
  });

  it('truncates the model view at maxPatchBytesForModel and keeps the full artifact', async () => {
    const repo = await createMemoryRepo({ 'a.txt': lines(200, 'a'), 'b.txt': lines(200, 'b') });
    await repo.workspace.write('a.txt', lines(200, 'A'));
    await repo.workspace.write('b.txt', lines(200, 'B'));
    const result = await diffWorkspaceToBase(repo.workspace, { limits: { maxPatchBytesForModel: 4000 }, rules: defaultPathRules() });
    expect(result.modelTruncated).toBe(true);
    expect(result.modelPatch.length).toBeLessThan(4200);
    expect(result.modelPatch).toContain('not shown');
    expect(new TextDecoder().decode(result.patch)).toContain('+B 199');
    expect(result.summary.warnings.some((w) => w.includes('truncated'))).toBe(true);
  });
});

describe('path quoting', () => {
  it.each([
    ['plain/file.txt', 'plain/file.txt'],
    ['with space.txt', 'with space.txt'],
    ['quote"d', '"quote\\"d"'],
    ['new\nline', '"new\\nline"'],
    ['tab\there', '"tab\\there"'],
    ['back\\slash', '"back\\\\slash"'],
    ['é', '"\\303\\251"'],
  ])('%j -> %s and back', (name, quoted) => {
    expect(quoteGitPath(name)).toBe(quoted);
    expect(unquoteGitPath(quoted)).toBe(name);
  });
});
